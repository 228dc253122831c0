// Versioned schema migrations for both backends, applied in order at start: SQLite's PRAGMA
// user_version and PostgreSQL's schema_version hold the index of the next step, so one number means
// one schema on either. Each step is written once (src/store/migration-step.ts: SQL with the types and
// spellings the two differ in as fragments) and gives each backend the script it runs.
//
// Adding a migration is one entry at the end of STEPS, below: nothing else to keep in step
// (test/store/schema-parity.test.ts then checks both backends' schemas after it). Never edit a
// released step: append one. test/store/migrations.test.ts holds the scripts of steps 1 to 23 as
// released (test/fixtures/migrations/released-1-23.json) against what this list gives.

import { STEPS_1_TO_8 } from './migrations-1-to-8.ts';
import { BIG, BYTES, type Fragment, postgresOnly, type Step, spelled, step } from './migration-step.ts';

/** Step 9's numbering of the rows a table holds: the rowid on SQLite; on PostgreSQL, by time made, then id. */
function numberRows(table: string, alias: string, madeColumn: string): Fragment {
  return spelled({
    sqlite: `UPDATE ${table} SET seq = rowid;`,
    postgres: `UPDATE ${table} ${alias} SET seq = o.n
    FROM (SELECT id, row_number() OVER (ORDER BY ${madeColumn}, id) AS n FROM ${table}) o WHERE ${alias}.id = o.id;`,
  });
}

export const STEPS: readonly Step[] = [
  ...STEPS_1_TO_8,
  // 9: insertion order without SQLite's rowid, which PostgreSQL lacks: a `seq` column, each insert
  // taking the table's next (src/store/seq.ts). Rows kept are numbered by their rowid on SQLite, and on
  // PostgreSQL (no rowid) in the order they were made, ties broken by id.
  step`
  ALTER TABLE payouts ADD COLUMN seq ${BIG} NOT NULL DEFAULT 0;
  ${numberRows('payouts', 'p', 'requested_ms')}
  ALTER TABLE strategies ADD COLUMN seq ${BIG} NOT NULL DEFAULT 0;
  ${numberRows('strategies', 's', 'created_ms')}
  ALTER TABLE playground_runs ADD COLUMN seq ${BIG} NOT NULL DEFAULT 0;
  ${numberRows('playground_runs', 'r', 'started_ms')}
  `,
  // 10: limits shared by the nodes of a cluster (src/service/rate-limit.ts; on SQLite they are
  // counted in memory and these tables stay empty). rate_hits: calls of a sliding-window limit, per
  // scope (which limit), key (whose calls) and millisecond, `hits` the calls counted at that instant.
  // stream_usage: bars a user was streamed by Replay/step per UTC day.
  step`
  CREATE TABLE rate_hits (
    scope TEXT NOT NULL,
    key   TEXT NOT NULL,
    at_ms ${BIG} NOT NULL,
    hits  INTEGER NOT NULL,
    PRIMARY KEY (scope, key, at_ms)
  );
  CREATE INDEX rate_hits_age ON rate_hits(scope, at_ms);
  CREATE TABLE stream_usage (
    user_id ${BIG} NOT NULL,
    day     INTEGER NOT NULL,
    bars    ${BIG} NOT NULL,
    PRIMARY KEY (user_id, day)
  );
  `,
  // 11: which node holds each live replay session, until when (src/store/leases.ts).
  step`
  CREATE TABLE session_leases (
    account_id ${BIG} PRIMARY KEY,
    node_id    TEXT NOT NULL,
    node_url   TEXT NOT NULL,
    expires_ms ${BIG} NOT NULL
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
  step`
  UPDATE playground_runs SET status = 'failed', error = 'The server restarted while the run was in progress', completed_ms = started_ms
    WHERE status = 'running' AND EXISTS (SELECT 1 FROM playground_runs n WHERE n.user_id = playground_runs.user_id AND n.status = 'running'
      AND (n.started_ms > playground_runs.started_ms OR (n.started_ms = playground_runs.started_ms AND n.id > playground_runs.id)));
  ALTER TABLE playground_runs ADD COLUMN node_id TEXT;
  ALTER TABLE playground_runs ADD COLUMN claimed_ms ${BIG};
  ALTER TABLE playground_runs ADD COLUMN heartbeat_ms ${BIG};
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
  step`
  CREATE TABLE playground_optimizations (
    id           TEXT PRIMARY KEY,
    user_id      ${BIG} NOT NULL REFERENCES users(id),
    status       TEXT NOT NULL,
    error        TEXT,
    request_json TEXT NOT NULL,
    state_json   TEXT NOT NULL,
    total        INTEGER NOT NULL,
    created_ms   ${BIG} NOT NULL,
    completed_ms ${BIG},
    seq          ${BIG} NOT NULL DEFAULT 0
  );
  CREATE INDEX playground_optimizations_user ON playground_optimizations(user_id, created_ms);
  CREATE TABLE playground_optimize_usage (
    user_id      ${BIG} NOT NULL,
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
  // run (a run of 200,000 trades is 8.8 MB). A run stored before is one chunk from 0. PostgreSQL keeps
  // a renamed table's constraint names, which the new table's would collide with: it renames them too.
  step`
  ALTER TABLE playground_run_trades RENAME TO playground_run_trades_whole;
  ${postgresOnly('ALTER TABLE playground_run_trades_whole RENAME CONSTRAINT playground_run_trades_pkey TO playground_run_trades_whole_pkey;')}
  ${postgresOnly('ALTER TABLE playground_run_trades_whole RENAME CONSTRAINT playground_run_trades_run_id_fkey TO playground_run_trades_whole_run_id_fkey;')}
  CREATE TABLE playground_run_trades (
    run_id      TEXT NOT NULL REFERENCES playground_runs(id) ON DELETE CASCADE,
    first_index ${BIG} NOT NULL,
    trade_count ${BIG} NOT NULL,
    trades      ${BYTES} NOT NULL,
    PRIMARY KEY (run_id, first_index)
  );
  INSERT INTO playground_run_trades (run_id, first_index, trade_count, trades)
    SELECT run_id, 0, trade_count, trades FROM playground_run_trades_whole;
  DROP TABLE playground_run_trades_whole;
  `,
  // 15: the journal's notes (src/store/journal.ts): one per replay session (trade_number 0) and one
  // per round-trip trade of it (trade_number n ≥ 1: the session's n-th trade, oldest first, as
  // src/engine/results.ts folds its fills). Deleted with the session's account.
  step`
  CREATE TABLE journal_notes (
    account_id   ${BIG} NOT NULL REFERENCES accounts(id),
    trade_number INTEGER NOT NULL CHECK (trade_number >= 0),
    text         TEXT NOT NULL,
    updated_ms   ${BIG} NOT NULL,
    PRIMARY KEY (account_id, trade_number)
  );
  `,
  // 16: a run's pace is any number from 1 to 50 (the spec's "speed number"): PostgreSQL's INTEGER
  // column rounded 2.5 to 2; SQLite's INTEGER affinity already keeps 2.5 as a REAL, so nothing changes there.
  step`
  ${spelled({ sqlite: 'SELECT 1;', postgres: 'ALTER TABLE playground_runs ALTER COLUMN speed TYPE DOUBLE PRECISION;' })}
  `,
  // 17: how many times a combination of an optimisation went back to the queue because its node went
  // silent (src/store/playground-runs.ts failStale): bounded, so a combination that kills nodes ends.
  step`
  ALTER TABLE playground_runs ADD COLUMN requeues INTEGER NOT NULL DEFAULT 0;
  `,
  // 18: a replay session's chart drawings (src/store/drawings.ts): one row per session, its
  // horizontal and trend lines as JSON (prices in ticks, times in epoch seconds), written whole by the
  // console. Deleted with the session's account.
  step`
  CREATE TABLE replay_drawings (
    account_id ${BIG} PRIMARY KEY REFERENCES accounts(id),
    drawings   TEXT NOT NULL,
    updated_ms ${BIG} NOT NULL
  );
  `,
  // 19: an ended replay session's statistics (src/service/replay/kept-results.ts), computed once
  // from its fills when it ends (or at the first read of a session ended before) and read from here
  // afterwards; null while live or not yet computed. Deleted with the session.
  step`
  ALTER TABLE replay_sessions ADD COLUMN results_json TEXT;
  `,
  // 20: an API key's profile (src/domain/api-profile.ts, written only as 'spec' or 'live'), NULL = the server's
  // default (API_PROFILE). It belongs to the user's current key and is read on every request, so the
  // tokens a key issued follow a change at once.
  step`
  ALTER TABLE users ADD COLUMN api_key_profile TEXT;
  `,
  // 21: the gateway's order model (src/engine/engine.ts): a trailing stop's distance and the extreme
  // it has reached, an entry's stop-loss leg type (4 for every stop-loss before, set here), the
  // client's custom tag (unique per account: a partial unique index, rows without a tag never
  // collide) and the one-cancels-other group made by linkedOrderId.
  step`
  ALTER TABLE orders ADD COLUMN trail_ticks ${BIG};
  ALTER TABLE orders ADD COLUMN trail_extreme_ticks ${BIG};
  ALTER TABLE orders ADD COLUMN sl_type INTEGER;
  ALTER TABLE orders ADD COLUMN custom_tag TEXT;
  ALTER TABLE orders ADD COLUMN link_id ${BIG};
  UPDATE orders SET sl_type = 4 WHERE sl_ticks IS NOT NULL;
  CREATE UNIQUE INDEX orders_custom_tag ON orders(account_id, custom_tag) WHERE custom_tag IS NOT NULL;
  `,
  // 22: the contracts a fill closed (src/engine/types.ts Fill.closedQty): the live profile's trades
  // carry P&L on closing fills only, and a position's opening is told from it. Null on earlier fills
  // (read as: closing when it realized P&L).
  step`
  ALTER TABLE fills ADD COLUMN closed_qty INTEGER;
  `,
  // 23: the commits made under a session's lease (src/store/leases.ts extend, the fence of every
  // commit; renewals do not count): a forward hop that lost its answer compares it with the count it
  // saw before sending, to tell "nothing was carried out, retry" from "it may have been".
  step`
  ALTER TABLE session_leases ADD COLUMN commits ${BIG} NOT NULL DEFAULT 0;
  `,
  // 24: a session over several instruments (src/engine/ledger.ts): each order's and fill's instrument
  // symbol. NULL: the session's one instrument (replay_sessions.symbol), as every row before.
  step`
  ALTER TABLE orders ADD COLUMN symbol TEXT;
  ALTER TABLE fills ADD COLUMN symbol TEXT;
  `,
  // 25: the journal's tags (src/store/journal-tags.ts): labels on a replay session (trade_number 0)
  // and on its round-trip trades (trade_number n ≥ 1, as journal_notes numbers them), for the
  // journal's filter. Kept case-folded, one row per tag. Deleted with the session's account.
  step`
  CREATE TABLE journal_tags (
    account_id   ${BIG} NOT NULL REFERENCES accounts(id),
    trade_number INTEGER NOT NULL CHECK (trade_number >= 0),
    tag          TEXT NOT NULL,
    PRIMARY KEY (account_id, trade_number, tag)
  );
  CREATE INDEX journal_tags_tag ON journal_tags (tag, account_id);
  `,
  // 26: branching a replay session (src/service/replay/branching.ts, docs/decisions.md "Branching"). A
  // session's checkpoints: its core state (engines, ledger, the challenge rule's state, cursor) after
  // the last trading command at each cursor and at its start, never its bars; a branch restores the
  // last one before its time and walks the bars from there. A branch's row names its parent and the
  // bar close it left from; a challenge session's branch is practice: the challenge whose rules it
  // shows (practice_of) and its own copy of the rule's state (practice_state), never the challenge's.
  step`
  CREATE TABLE replay_checkpoints (
    account_id    ${BIG} NOT NULL REFERENCES accounts(id),
    cursor_s      ${BIG} NOT NULL,
    current_index ${BIG} NOT NULL,
    total_bars    ${BIG} NOT NULL,
    engine_core   TEXT NOT NULL,
    rule_state    TEXT,
    PRIMARY KEY (account_id, cursor_s)
  );
  ALTER TABLE replay_sessions ADD COLUMN parent_account_id ${BIG};
  ALTER TABLE replay_sessions ADD COLUMN branch_s ${BIG};
  ALTER TABLE replay_sessions ADD COLUMN practice_of ${BIG};
  ALTER TABLE replay_sessions ADD COLUMN practice_state TEXT;
  `,
  // 27: chart drawings kept for an instrument rather than one session (src/store/drawings.ts): one row
  // per user and instrument symbol, listed with every session of that user on that instrument, so
  // yesterday's levels carry into today's session. Self-contained: it reads and changes no other table.
  step`
  CREATE TABLE instrument_drawings (
    user_id    ${BIG} NOT NULL REFERENCES users(id),
    symbol     TEXT NOT NULL,
    drawings   TEXT NOT NULL,
    updated_ms ${BIG} NOT NULL,
    PRIMARY KEY (user_id, symbol)
  );
  `,
];

/** SQLite's scripts, step by step (src/store/db.ts). */
export const MIGRATIONS: readonly string[] = STEPS.map((s) => s.sqlite);
/** PostgreSQL's scripts, step by step (src/store/postgres.ts). */
export const PG_MIGRATIONS: readonly string[] = STEPS.map((s) => s.postgres);
