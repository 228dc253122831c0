// The migration steps released before the PostgreSQL store, 1 to 8: the schema as SQLite first held
// it, with the types PostgreSQL gives it (src/store/migration-step.ts). Released: never edited. The
// list, and where a new step goes, is src/store/migrations.ts.

import { BIG, BYTES, FLOAT, postgresOnly, ROW_ID, SERIAL_ID, type Step, spelled, step } from './migration-step.ts';

/**
 * users.email, unique and compared without case: SQLite's COLLATE NOCASE (ASCII letters), and on
 * PostgreSQL the nondeterministic ICU collation `nocase` that step 1 creates (every script's letters).
 */
const EMAIL = spelled({ sqlite: 'TEXT NOT NULL UNIQUE COLLATE NOCASE', postgres: 'TEXT COLLATE nocase NOT NULL UNIQUE' });

export const STEPS_1_TO_8: readonly Step[] = [
  // 1: users, tokens, accounts, instance metadata
  step`
  ${postgresOnly("CREATE COLLATION nocase (provider = icu, locale = 'und-u-ks-level2', deterministic = false);")}
  CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
  );
  CREATE TABLE users (
    id                 ${ROW_ID},
    email              ${EMAIL},
    password_hash      TEXT,
    plan               TEXT NOT NULL CHECK (plan IN ('pro', 'free')),
    verified           INTEGER NOT NULL CHECK (verified IN (0, 1)),
    disabled           INTEGER NOT NULL CHECK (disabled IN (0, 1)),
    api_key_hash       TEXT UNIQUE,
    api_key_created_ms ${BIG},
    created_ms         ${BIG} NOT NULL
  );
  CREATE TABLE tokens (
    jti_hash   TEXT PRIMARY KEY,
    user_id    ${BIG} NOT NULL REFERENCES users(id),
    issued_ms  ${BIG} NOT NULL,
    expires_ms ${BIG} NOT NULL,
    revoked_ms ${BIG}
  );
  CREATE INDEX tokens_user ON tokens(user_id);
  CREATE TABLE accounts (
    id            ${SERIAL_ID},
    user_id       ${BIG} NOT NULL REFERENCES users(id),
    kind          TEXT NOT NULL CHECK (kind IN ('replay', 'challenge')),
    name          TEXT NOT NULL,
    balance_cents ${BIG} NOT NULL,
    active        INTEGER NOT NULL CHECK (active IN (0, 1)),
    created_ms    ${BIG} NOT NULL
  );
  CREATE INDEX accounts_user ON accounts(user_id);
  `,
  // 2: market data. One row per instrument per UTC day: the day's bars as one columnar BLOB
  // (see src/data/bar-columns.ts). Imported files are remembered by hash, so a re-import is a no-op;
  // an import lock row tells the server to answer 503 for that instrument meanwhile.
  step`
  CREATE TABLE bar_chunks (
    symbol    TEXT NOT NULL,
    day       INTEGER NOT NULL,
    source    TEXT NOT NULL,
    bar_count ${BIG} NOT NULL,
    first_s   ${BIG} NOT NULL,
    last_s    ${BIG} NOT NULL,
    bars      ${BYTES} NOT NULL,
    PRIMARY KEY (symbol, day)
  );
  CREATE TABLE imports (
    symbol      TEXT NOT NULL,
    file_sha256 TEXT NOT NULL,
    file_name   TEXT NOT NULL,
    format      TEXT NOT NULL,
    bar_count   ${BIG} NOT NULL,
    first_s     ${BIG} NOT NULL,
    last_s      ${BIG} NOT NULL,
    imported_ms ${BIG} NOT NULL,
    PRIMARY KEY (symbol, file_sha256)
  );
  CREATE TABLE import_locks (
    symbol     TEXT PRIMARY KEY,
    started_ms ${BIG} NOT NULL,
    pid        INTEGER NOT NULL
  );
  `,
  // 3: per-user daily usage of History/retrieveBars (bars returned, source bars processed), kept
  // across restarts so a restart does not reset a day's budget.
  step`
  CREATE TABLE history_usage (
    user_id     ${BIG} NOT NULL,
    day         INTEGER NOT NULL,
    bars        ${BIG} NOT NULL,
    source_bars ${BIG} NOT NULL,
    PRIMARY KEY (user_id, day)
  );
  `,
  // 4: replay sessions, their orders and fills. A session row holds the cursor and the engine's
  // small core state (balance, open lots, id counters); orders and fills are rows of their own so
  // that a call writes only what changed.
  step`
  CREATE TABLE replay_sessions (
    account_id        ${BIG} PRIMARY KEY REFERENCES accounts(id),
    session_id        TEXT NOT NULL UNIQUE,
    user_id           ${BIG} NOT NULL REFERENCES users(id),
    symbol            TEXT NOT NULL,
    timeframe         TEXT NOT NULL,
    start_s           ${BIG} NOT NULL,
    end_s             ${BIG} NOT NULL,
    cursor_s          ${BIG} NOT NULL,
    current_index     ${BIG} NOT NULL,
    total_bars        ${BIG} NOT NULL,
    history_bars      ${BIG} NOT NULL,
    status            TEXT NOT NULL CHECK (status IN ('active', 'ended')),
    end_reason        TEXT,
    challenge_id      ${BIG},
    engine_core       TEXT NOT NULL,
    created_ms        ${BIG} NOT NULL,
    last_activity_ms  ${BIG} NOT NULL,
    ended_ms          ${BIG}
  );
  CREATE INDEX replay_sessions_user ON replay_sessions(user_id, status);
  CREATE TABLE orders (
    account_id         ${BIG} NOT NULL REFERENCES accounts(id),
    id                 ${BIG} NOT NULL,
    type               INTEGER NOT NULL,
    side               INTEGER NOT NULL,
    size               ${BIG} NOT NULL,
    limit_ticks        ${BIG},
    stop_ticks         ${BIG},
    status             INTEGER NOT NULL,
    fill_volume        ${BIG} NOT NULL,
    filled_price_ticks ${FLOAT},
    created_s          ${BIG} NOT NULL,
    updated_s          ${BIG},
    sl_ticks           ${BIG},
    tp_ticks           ${BIG},
    parent_id          ${BIG},
    oco_id             ${BIG},
    triggered          INTEGER NOT NULL,
    PRIMARY KEY (account_id, id)
  );
  CREATE TABLE fills (
    account_id    ${BIG} NOT NULL REFERENCES accounts(id),
    id            ${BIG} NOT NULL,
    order_id      ${BIG} NOT NULL,
    side          INTEGER NOT NULL,
    size          ${BIG} NOT NULL,
    price_ticks   ${BIG} NOT NULL,
    time_s        ${BIG} NOT NULL,
    fee_cents     ${BIG} NOT NULL,
    realized_cents ${BIG} NOT NULL,
    PRIMARY KEY (account_id, id)
  );
  `,
  // 5: challenge accounts (their rule state as JSON, with a version for optimistic concurrency)
  // and their payouts.
  step`
  CREATE TABLE challenges (
    account_id ${BIG} PRIMARY KEY REFERENCES accounts(id),
    plan_key   TEXT NOT NULL,
    state      TEXT NOT NULL,
    version    INTEGER NOT NULL,
    created_ms ${BIG} NOT NULL
  );
  CREATE TABLE payouts (
    id                   TEXT PRIMARY KEY,
    account_id           ${BIG} NOT NULL REFERENCES accounts(id),
    amount_cents         ${BIG} NOT NULL,
    balance_before_cents ${BIG} NOT NULL,
    balance_after_cents  ${BIG} NOT NULL,
    status               TEXT NOT NULL,
    sim_trade_date       INTEGER NOT NULL,
    requested_ms         ${BIG} NOT NULL
  );
  CREATE INDEX payouts_account ON payouts(account_id, requested_ms);
  `,
  // 6: the web login's cookie sessions (SHA-256 of the JWT's jti, like tokens, in a table of their
  // own so a cookie JWT can never pass as a bearer token), saved playground strategies and
  // playground runs. A run keeps `strategy_id` without a foreign key: deleting a strategy keeps them.
  step`
  CREATE TABLE web_sessions (
    jti_hash   TEXT PRIMARY KEY,
    user_id    ${BIG} NOT NULL REFERENCES users(id),
    issued_ms  ${BIG} NOT NULL,
    expires_ms ${BIG} NOT NULL,
    revoked_ms ${BIG}
  );
  CREATE INDEX web_sessions_user ON web_sessions(user_id);
  CREATE TABLE strategies (
    id          TEXT PRIMARY KEY,
    user_id     ${BIG} NOT NULL REFERENCES users(id),
    name        TEXT NOT NULL,
    code        TEXT NOT NULL,
    instrument  TEXT NOT NULL,
    timeframe   TEXT NOT NULL,
    params_json TEXT NOT NULL,
    created_ms  ${BIG} NOT NULL,
    updated_ms  ${BIG} NOT NULL
  );
  CREATE INDEX strategies_user ON strategies(user_id, updated_ms);
  CREATE TABLE playground_runs (
    id                      TEXT PRIMARY KEY,
    user_id                 ${BIG} NOT NULL REFERENCES users(id),
    strategy_id             TEXT,
    template_id             TEXT,
    instrument              TEXT NOT NULL,
    timeframe               TEXT NOT NULL,
    start_date              TEXT NOT NULL,
    end_date                TEXT NOT NULL,
    params_json             TEXT NOT NULL,
    context_timeframes_json TEXT NOT NULL,
    speed                   INTEGER,
    status                  TEXT NOT NULL CHECK (status IN ('running', 'completed', 'failed', 'stopped', 'timeout')),
    error                   TEXT,
    total_pnl_cents         ${BIG},
    total_trades            ${BIG},
    win_rate                ${FLOAT},
    bars_done               ${BIG} NOT NULL DEFAULT 0,
    bars_total              ${BIG} NOT NULL,
    result_json             TEXT,
    started_ms              ${BIG} NOT NULL,
    completed_ms            ${BIG}
  );
  CREATE INDEX playground_runs_user ON playground_runs(user_id, started_ms);
  CREATE INDEX playground_runs_strategy ON playground_runs(strategy_id, started_ms);
  `,
  // 7: rollups of the stored bars (1 m, 1 h) per instrument per UTC day, one columnar BLOB each
  // like bar_chunks. `source` is 'import' (written in the import's transaction with its chunk) or
  // 'synthetic:<generator version>' (built the first time a generated day is read); see
  // src/data/rollup.ts and docs/decisions.md, "History and market data".
  step`
  CREATE TABLE bar_rollups (
    symbol    TEXT NOT NULL,
    day       INTEGER NOT NULL,
    width_s   INTEGER NOT NULL,
    source    TEXT NOT NULL,
    bar_count ${BIG} NOT NULL,
    bars      ${BYTES} NOT NULL,
    PRIMARY KEY (symbol, day, width_s)
  );
  `,
  // 8: every round-trip trade of a playground run, packed in columns in one BLOB per run
  // (src/store/playground-runs.ts, encodeTrades); deleted with its run.
  step`
  CREATE TABLE playground_run_trades (
    run_id      TEXT PRIMARY KEY REFERENCES playground_runs(id) ON DELETE CASCADE,
    trade_count ${BIG} NOT NULL,
    trades      ${BYTES} NOT NULL
  );
  `,
];
