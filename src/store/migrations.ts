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
  // 4: replay sessions, their orders and fills. A session row holds the cursor and the engine's
  // small core state (balance, open lots, id counters); orders and fills are rows of their own so
  // that a call writes only what changed.
  `
  CREATE TABLE replay_sessions (
    account_id        INTEGER PRIMARY KEY REFERENCES accounts(id),
    session_id        TEXT NOT NULL UNIQUE,
    user_id           INTEGER NOT NULL REFERENCES users(id),
    symbol            TEXT NOT NULL,
    timeframe         TEXT NOT NULL,
    start_s           INTEGER NOT NULL,
    end_s             INTEGER NOT NULL,
    cursor_s          INTEGER NOT NULL,
    current_index     INTEGER NOT NULL,
    total_bars        INTEGER NOT NULL,
    history_bars      INTEGER NOT NULL,
    status            TEXT NOT NULL CHECK (status IN ('active', 'ended')),
    end_reason        TEXT,
    challenge_id      INTEGER,
    engine_core       TEXT NOT NULL,
    created_ms        INTEGER NOT NULL,
    last_activity_ms  INTEGER NOT NULL,
    ended_ms          INTEGER
  );
  CREATE INDEX replay_sessions_user ON replay_sessions(user_id, status);
  CREATE TABLE orders (
    account_id         INTEGER NOT NULL REFERENCES accounts(id),
    id                 INTEGER NOT NULL,
    type               INTEGER NOT NULL,
    side               INTEGER NOT NULL,
    size               INTEGER NOT NULL,
    limit_ticks        INTEGER,
    stop_ticks         INTEGER,
    status             INTEGER NOT NULL,
    fill_volume        INTEGER NOT NULL,
    filled_price_ticks REAL,
    created_s          INTEGER NOT NULL,
    updated_s          INTEGER,
    sl_ticks           INTEGER,
    tp_ticks           INTEGER,
    parent_id          INTEGER,
    oco_id             INTEGER,
    triggered          INTEGER NOT NULL,
    PRIMARY KEY (account_id, id)
  );
  CREATE TABLE fills (
    account_id    INTEGER NOT NULL REFERENCES accounts(id),
    id            INTEGER NOT NULL,
    order_id      INTEGER NOT NULL,
    side          INTEGER NOT NULL,
    size          INTEGER NOT NULL,
    price_ticks   INTEGER NOT NULL,
    time_s        INTEGER NOT NULL,
    fee_cents     INTEGER NOT NULL,
    realized_cents INTEGER NOT NULL,
    PRIMARY KEY (account_id, id)
  );
  `,
  // 5: challenge accounts (their rule state as JSON, with a version for optimistic concurrency)
  // and their payouts.
  `
  CREATE TABLE challenges (
    account_id INTEGER PRIMARY KEY REFERENCES accounts(id),
    plan_key   TEXT NOT NULL,
    state      TEXT NOT NULL,
    version    INTEGER NOT NULL,
    created_ms INTEGER NOT NULL
  );
  CREATE TABLE payouts (
    id                   TEXT PRIMARY KEY,
    account_id           INTEGER NOT NULL REFERENCES accounts(id),
    amount_cents         INTEGER NOT NULL,
    balance_before_cents INTEGER NOT NULL,
    balance_after_cents  INTEGER NOT NULL,
    status               TEXT NOT NULL,
    sim_trade_date       INTEGER NOT NULL,
    requested_ms         INTEGER NOT NULL
  );
  CREATE INDEX payouts_account ON payouts(account_id, requested_ms);
  `,
  // 6: the web login's cookie sessions (SHA-256 of the JWT's jti, like tokens, in a table of their
  // own so a cookie JWT can never pass as a bearer token), saved playground strategies and
  // playground runs. A run keeps `strategy_id` without a foreign key: deleting a strategy keeps them.
  `
  CREATE TABLE web_sessions (
    jti_hash   TEXT PRIMARY KEY,
    user_id    INTEGER NOT NULL REFERENCES users(id),
    issued_ms  INTEGER NOT NULL,
    expires_ms INTEGER NOT NULL,
    revoked_ms INTEGER
  );
  CREATE INDEX web_sessions_user ON web_sessions(user_id);
  CREATE TABLE strategies (
    id          TEXT PRIMARY KEY,
    user_id     INTEGER NOT NULL REFERENCES users(id),
    name        TEXT NOT NULL,
    code        TEXT NOT NULL,
    instrument  TEXT NOT NULL,
    timeframe   TEXT NOT NULL,
    params_json TEXT NOT NULL,
    created_ms  INTEGER NOT NULL,
    updated_ms  INTEGER NOT NULL
  );
  CREATE INDEX strategies_user ON strategies(user_id, updated_ms);
  CREATE TABLE playground_runs (
    id                      TEXT PRIMARY KEY,
    user_id                 INTEGER NOT NULL REFERENCES users(id),
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
    total_pnl_cents         INTEGER,
    total_trades            INTEGER,
    win_rate                REAL,
    bars_done               INTEGER NOT NULL DEFAULT 0,
    bars_total              INTEGER NOT NULL,
    result_json             TEXT,
    started_ms              INTEGER NOT NULL,
    completed_ms            INTEGER
  );
  CREATE INDEX playground_runs_user ON playground_runs(user_id, started_ms);
  CREATE INDEX playground_runs_strategy ON playground_runs(strategy_id, started_ms);
  `,
  // 7: rollups of the stored bars (1 m, 1 h) per instrument per UTC day, one columnar BLOB each
  // like bar_chunks. `source` is 'import' (written in the import's transaction with its chunk) or
  // 'synthetic:<generator version>' (built the first time a generated day is read); see
  // src/data/rollup.ts and docs/decisions.md, "Rollups".
  `
  CREATE TABLE bar_rollups (
    symbol    TEXT NOT NULL,
    day       INTEGER NOT NULL,
    width_s   INTEGER NOT NULL,
    source    TEXT NOT NULL,
    bar_count INTEGER NOT NULL,
    bars      BLOB NOT NULL,
    PRIMARY KEY (symbol, day, width_s)
  );
  `,
  // 8: every round-trip trade of a playground run, packed in columns in one BLOB per run
  // (src/store/playground-runs.ts, encodeTrades); deleted with its run.
  `
  CREATE TABLE playground_run_trades (
    run_id      TEXT PRIMARY KEY REFERENCES playground_runs(id) ON DELETE CASCADE,
    trade_count INTEGER NOT NULL,
    trades      BLOB NOT NULL
  );
  `,
  // 9: insertion order without SQLite's rowid, which PostgreSQL lacks: a `seq` column (the rowid
  // for rows kept), each insert taking the table's next (src/store/seq.ts).
  `
  ALTER TABLE payouts ADD COLUMN seq INTEGER NOT NULL DEFAULT 0;
  UPDATE payouts SET seq = rowid;
  ALTER TABLE strategies ADD COLUMN seq INTEGER NOT NULL DEFAULT 0;
  UPDATE strategies SET seq = rowid;
  ALTER TABLE playground_runs ADD COLUMN seq INTEGER NOT NULL DEFAULT 0;
  UPDATE playground_runs SET seq = rowid;
  `,
  // 10: limits shared by the nodes of a cluster (src/service/rate-limit.ts; on SQLite they are
  // counted in memory and these tables stay empty). rate_hits: calls of a sliding-window limit, per
  // scope (which limit), key (whose calls) and millisecond, \`hits\` the calls counted at that instant.
  // stream_usage: bars a user was streamed by Replay/step per UTC day.
  `
  CREATE TABLE rate_hits (
    scope TEXT NOT NULL,
    key   TEXT NOT NULL,
    at_ms INTEGER NOT NULL,
    hits  INTEGER NOT NULL,
    PRIMARY KEY (scope, key, at_ms)
  );
  CREATE INDEX rate_hits_age ON rate_hits(scope, at_ms);
  CREATE TABLE stream_usage (
    user_id INTEGER NOT NULL,
    day     INTEGER NOT NULL,
    bars    INTEGER NOT NULL,
    PRIMARY KEY (user_id, day)
  );
  `,
  // 11: which node holds each live replay session, until when (src/store/leases.ts).
  `
  CREATE TABLE session_leases (
    account_id INTEGER PRIMARY KEY,
    node_id    TEXT NOT NULL,
    node_url   TEXT NOT NULL,
    expires_ms INTEGER NOT NULL
  );
  CREATE INDEX session_leases_node ON session_leases (node_id);
  `,
  // 12: a playground run is a job in the store (src/service/playground/runs.ts). A `running`
  // row with no node_id is queued; a node with a free runner claims it (node_id, claimed_ms), writes
  // progress and a heartbeat to it, and applies stop_requested and speed set by any node. job_json
  // holds what a node needs to run it (the code, the span), cleared at the end; paced = 1 when it
  // holds a place in the paced runner share (0: full speed); 0/1 flags without CHECK (ALTER-added).
  // One user has at most one run queued or running: a partial unique index (extra ones an older
  // version left running are failed first). Rows left running read as claimed by a node that is
  // gone ('unknown'), so they are failed as stale.
  `
  UPDATE playground_runs SET status = 'failed', error = 'The server restarted while the run was in progress', completed_ms = started_ms
    WHERE status = 'running' AND EXISTS (SELECT 1 FROM playground_runs n WHERE n.user_id = playground_runs.user_id AND n.status = 'running'
      AND (n.started_ms > playground_runs.started_ms OR (n.started_ms = playground_runs.started_ms AND n.id > playground_runs.id)));
  ALTER TABLE playground_runs ADD COLUMN node_id TEXT;
  ALTER TABLE playground_runs ADD COLUMN claimed_ms INTEGER;
  ALTER TABLE playground_runs ADD COLUMN heartbeat_ms INTEGER;
  ALTER TABLE playground_runs ADD COLUMN stop_requested INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE playground_runs ADD COLUMN paced INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE playground_runs ADD COLUMN job_json TEXT;
  ALTER TABLE playground_runs ADD COLUMN progress_json TEXT;
  UPDATE playground_runs SET node_id = 'unknown', claimed_ms = started_ms, heartbeat_ms = started_ms WHERE status = 'running';
  CREATE UNIQUE INDEX playground_runs_one_live ON playground_runs(user_id) WHERE status = 'running';
  CREATE INDEX playground_runs_queue ON playground_runs(seq) WHERE status = 'running' AND node_id IS NULL;
  `,
  // 13: playground optimisations (src/service/playground/optimize.ts). An optimisation is a row of
  // its own (the checked request, its state, the walk-forward windows' state); each combination is an
  // ordinary run row (a job any node claims) carrying optimization_id, its window (walk-forward; null
  // otherwise) and its combination index (null for a window's out-of-sample run), and at its end a
  // compact summary of its statistics (summary_json) for sorting without reading the result. The
  // one-run-per-user index now counts single runs only. Combinations queued per user per UTC day
  // are counted in playground_optimize_usage, which outlives pruned optimisations.
  `
  CREATE TABLE playground_optimizations (
    id           TEXT PRIMARY KEY,
    user_id      INTEGER NOT NULL REFERENCES users(id),
    status       TEXT NOT NULL,
    error        TEXT,
    request_json TEXT NOT NULL,
    state_json   TEXT NOT NULL,
    total        INTEGER NOT NULL,
    created_ms   INTEGER NOT NULL,
    completed_ms INTEGER,
    seq          INTEGER NOT NULL DEFAULT 0
  );
  CREATE INDEX playground_optimizations_user ON playground_optimizations(user_id, created_ms);
  CREATE TABLE playground_optimize_usage (
    user_id      INTEGER NOT NULL,
    day          INTEGER NOT NULL,
    combinations INTEGER NOT NULL,
    PRIMARY KEY (user_id, day)
  );
  ALTER TABLE playground_runs ADD COLUMN optimization_id TEXT;
  ALTER TABLE playground_runs ADD COLUMN opt_window INTEGER;
  ALTER TABLE playground_runs ADD COLUMN opt_combo INTEGER;
  ALTER TABLE playground_runs ADD COLUMN summary_json TEXT;
  DROP INDEX playground_runs_one_live;
  CREATE UNIQUE INDEX playground_runs_one_live ON playground_runs(user_id) WHERE status = 'running' AND optimization_id IS NULL;
  CREATE INDEX playground_runs_optimization ON playground_runs(optimization_id, opt_window, opt_combo) WHERE optimization_id IS NOT NULL;
  `,
  // 14: a run's packed trades in chunks (src/store/playground-runs.ts): a row holds trades
  // [first_index, first_index + trade_count), so a page reads one or two chunks instead of the whole
  // run (a run of 200,000 trades is 8.8 MB). A run stored before is one chunk from 0.
  `
  ALTER TABLE playground_run_trades RENAME TO playground_run_trades_whole;
  CREATE TABLE playground_run_trades (
    run_id      TEXT NOT NULL REFERENCES playground_runs(id) ON DELETE CASCADE,
    first_index INTEGER NOT NULL,
    trade_count INTEGER NOT NULL,
    trades      BLOB NOT NULL,
    PRIMARY KEY (run_id, first_index)
  );
  INSERT INTO playground_run_trades (run_id, first_index, trade_count, trades)
    SELECT run_id, 0, trade_count, trades FROM playground_run_trades_whole;
  DROP TABLE playground_run_trades_whole;
  `,
  // 15: the journal's notes (src/store/journal.ts): one per replay session (trade_number 0) and one
  // per round-trip trade of it (trade_number n ≥ 1: the session's n-th trade, oldest first, as
  // src/engine/results.ts folds its fills). Deleted with the session's account.
  `
  CREATE TABLE journal_notes (
    account_id   INTEGER NOT NULL REFERENCES accounts(id),
    trade_number INTEGER NOT NULL CHECK (trade_number >= 0),
    text         TEXT NOT NULL,
    updated_ms   INTEGER NOT NULL,
    PRIMARY KEY (account_id, trade_number)
  );
  `,
  // 16: a run's pace is any number from 1 to 50 (the spec's "speed number"): PostgreSQL's INTEGER
  // column rounded 2.5 to 2; SQLite's INTEGER affinity already keeps 2.5 as a REAL, so nothing changes there.
  `
  SELECT 1;
  `,
  // 17: how many times a combination of an optimisation went back to the queue because its node went
  // silent (src/store/playground-runs.ts failStale): bounded, so a combination that kills nodes ends.
  `
  ALTER TABLE playground_runs ADD COLUMN requeues INTEGER NOT NULL DEFAULT 0;
  `,
  // 18: a replay session's chart drawings (src/store/drawings.ts): one row per session, its
  // horizontal and trend lines as JSON (prices in ticks, times in epoch seconds), written whole by the
  // console. Deleted with the session's account.
  `
  CREATE TABLE replay_drawings (
    account_id INTEGER PRIMARY KEY REFERENCES accounts(id),
    drawings   TEXT NOT NULL,
    updated_ms INTEGER NOT NULL
  );
  `,
  // 19: an ended replay session's statistics (src/service/replay/kept-results.ts), computed once
  // from its fills when it ends (or at the first read of a session ended before) and read from here
  // afterwards; null while live or not yet computed. Deleted with the session.
  `
  ALTER TABLE replay_sessions ADD COLUMN results_json TEXT;
  `,
  // 20: an API key's profile (src/domain/api-profile.ts, written only as 'spec' or 'live'), NULL = the server's
  // default (API_PROFILE). It belongs to the user's current key and is read on every request, so the
  // tokens a key issued follow a change at once.
  `
  ALTER TABLE users ADD COLUMN api_key_profile TEXT;
  `,
  // 21: the gateway's order model (src/engine/engine.ts): a trailing stop's distance and the extreme
  // it has reached, an entry's stop-loss leg type (4 for every stop-loss before, set here), the
  // client's custom tag (unique per account: a partial unique index, rows without a tag never
  // collide) and the one-cancels-other group made by linkedOrderId.
  `
  ALTER TABLE orders ADD COLUMN trail_ticks INTEGER;
  ALTER TABLE orders ADD COLUMN trail_extreme_ticks INTEGER;
  ALTER TABLE orders ADD COLUMN sl_type INTEGER;
  ALTER TABLE orders ADD COLUMN custom_tag TEXT;
  ALTER TABLE orders ADD COLUMN link_id INTEGER;
  UPDATE orders SET sl_type = 4 WHERE sl_ticks IS NOT NULL;
  CREATE UNIQUE INDEX orders_custom_tag ON orders(account_id, custom_tag) WHERE custom_tag IS NOT NULL;
  `,
  // 22: the contracts a fill closed (src/engine/types.ts Fill.closedQty): the live profile's trades
  // carry P&L on closing fills only, and a position's opening is told from it. Null on earlier fills
  // (read as: closing when it realized P&L).
  `
  ALTER TABLE fills ADD COLUMN closed_qty INTEGER;
  `,
  // 23: the commits made under a session's lease (src/store/leases.ts extend, the fence of every
  // commit; renewals do not count): a forward hop that lost its answer compares it with the count it
  // saw before sending, to tell "nothing was carried out, retry" from "it may have been".
  `
  ALTER TABLE session_leases ADD COLUMN commits INTEGER NOT NULL DEFAULT 0;
  `,
];
