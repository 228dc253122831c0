// Versioned schema migrations, applied in order at start; PRAGMA user_version is the index of the
// next one. Never edit a released migration: append a new one.

export const MIGRATIONS: readonly string[] = [
  // 1: users, tokens, accounts, instance metadata
  `
  CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
  );
  CREATE TABLE users (
    id                 INTEGER PRIMARY KEY,
    email              TEXT NOT NULL UNIQUE COLLATE NOCASE,
    password_hash      TEXT,
    plan               TEXT NOT NULL CHECK (plan IN ('pro', 'free')),
    verified           INTEGER NOT NULL CHECK (verified IN (0, 1)),
    disabled           INTEGER NOT NULL CHECK (disabled IN (0, 1)),
    api_key_hash       TEXT UNIQUE,
    api_key_created_ms INTEGER,
    created_ms         INTEGER NOT NULL
  );
  CREATE TABLE tokens (
    jti_hash   TEXT PRIMARY KEY,
    user_id    INTEGER NOT NULL REFERENCES users(id),
    issued_ms  INTEGER NOT NULL,
    expires_ms INTEGER NOT NULL,
    revoked_ms INTEGER
  );
  CREATE INDEX tokens_user ON tokens(user_id);
  CREATE TABLE accounts (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    user_id       INTEGER NOT NULL REFERENCES users(id),
    kind          TEXT NOT NULL CHECK (kind IN ('replay', 'challenge')),
    name          TEXT NOT NULL,
    balance_cents INTEGER NOT NULL,
    active        INTEGER NOT NULL CHECK (active IN (0, 1)),
    created_ms    INTEGER NOT NULL
  );
  CREATE INDEX accounts_user ON accounts(user_id);
  `,
];
