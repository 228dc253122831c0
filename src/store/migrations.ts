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
  // 2: market data. One row per instrument per UTC day: the day's bars as one columnar BLOB
  // (see src/data/bar-columns.ts). Imported files are remembered by hash, so a re-import is a no-op;
  // an import lock row tells the server to answer 503 for that instrument meanwhile.
  `
  CREATE TABLE bar_chunks (
    symbol    TEXT NOT NULL,
    day       INTEGER NOT NULL,
    source    TEXT NOT NULL,
    bar_count INTEGER NOT NULL,
    first_s   INTEGER NOT NULL,
    last_s    INTEGER NOT NULL,
    bars      BLOB NOT NULL,
    PRIMARY KEY (symbol, day)
  );
  CREATE TABLE imports (
    symbol      TEXT NOT NULL,
    file_sha256 TEXT NOT NULL,
    file_name   TEXT NOT NULL,
    format      TEXT NOT NULL,
    bar_count   INTEGER NOT NULL,
    first_s     INTEGER NOT NULL,
    last_s      INTEGER NOT NULL,
    imported_ms INTEGER NOT NULL,
    PRIMARY KEY (symbol, file_sha256)
  );
  CREATE TABLE import_locks (
    symbol     TEXT PRIMARY KEY,
    started_ms INTEGER NOT NULL,
    pid        INTEGER NOT NULL
  );
  `,
  // 3: per-user daily usage of History/retrieveBars (bars returned, source bars processed), kept
  // across restarts so a restart does not reset a day's budget.
  `
  CREATE TABLE history_usage (
    user_id     INTEGER NOT NULL,
    day         INTEGER NOT NULL,
    bars        INTEGER NOT NULL,
    source_bars INTEGER NOT NULL,
    PRIMARY KEY (user_id, day)
  );
  `,
];
