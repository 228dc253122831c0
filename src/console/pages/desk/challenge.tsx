// The desk's challenge panel: the rule state of the challenge account a session trades for (both
// floors and which one stops trading first, its distance from the current equity, profit against
// the target, the best day against the consistency limit, trading days, lock, a paused day), read
// from GET /api/auth/challenges when the hubs say the session moved or traded; violations from the
// advance answers themselves, the moment they happen (a decision during playback: the outcome the
// challenge read states).

import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import {
  cap,
  type ChallengeDetail,
  consistencyLimit,
  effectiveFloorKind,
  loadChallengeDetails,
  outcomeText,
  PHASE_LABEL,
  RULE_ARITHMETIC,
  RULE_LABEL,
  STATUS_LABEL,
} from '../../challenge.ts';
import { money, signClass, utc } from '../../ui.tsx';
import { CHALLENGE_READ_GAP_MS } from '../../limits.ts';
import type { PropFirm, Violation } from './model.ts';

/** At most one read in flight and one every CHALLENGE_READ_GAP_MS; a request in between is coalesced into one trailing read. */

/**
 * The challenge account's figures, refreshed on demand (`refresh()` on the hubs' events).
 * `challengeAccountId` null (a session started outside the desk): the one challenge with a live
 * session, once found, is the one followed.
 */
export function useChallengeDetail(challengeAccountId: number | null): {
  detail: ChallengeDetail | null;
  error: string | null;
  refresh: () => void;
} {
  const [detail, setDetail] = useState<ChallengeDetail | null>(null);
  const [error, setError] = useState<string | null>(null);
  const s = useRef({ id: challengeAccountId, inFlight: false, pending: false, last: 0, timer: null as ReturnType<typeof setTimeout> | null, gone: false });

  const read = async () => {
    const st = s.current;
    st.inFlight = true;
    st.last = Date.now();
    try {
      const all = await loadChallengeDetails();
      if (st.gone) return;
      if (st.id === null) {
        const live = all.filter((c) => c.liveSession);
        if (live.length === 1) st.id = live[0].accountId;
      }
      const d = all.find((c) => c.accountId === st.id) ?? null;
      if (d) setDetail(d);
      setError(null);
    } catch (e) {
      if (!st.gone) setError(`Rule figures not read: ${e instanceof Error ? e.message : String(e)}`);
    } finally {
      st.inFlight = false;
      if (st.pending && !st.gone) {
        st.pending = false;
        refresh();
      }
    }
  };

  const refresh = useCallback(() => {
    const st = s.current;
    if (st.gone) return;
    if (st.inFlight) {
      st.pending = true;
      return;
    }
    if (st.timer) return;
    const wait = st.last + CHALLENGE_READ_GAP_MS - Date.now();
    if (wait > 0) {
      st.timer = setTimeout(() => {
        st.timer = null;
        read();
      }, wait);
    } else read();
  }, []);

  useEffect(() => {
    const st = s.current;
    st.gone = false;
    return () => {
      st.gone = true;
      if (st.timer) clearTimeout(st.timer);
    };
  }, []);

  return { detail, error, refresh };
}


function Row({ label, value, testid, cls, note, title }: { label: string; value: string; testid: string; cls?: string; note?: ComponentChildren; title?: string }) {
  return (
    <>
      <dt title={title}>{label}</dt>
      <dd>
        <span class={`mono ${cls ?? ''}`} data-testid={testid}>
          {value}
        </span>
        {note}
      </dd>
    </>
  );
}

export function ChallengePanel({ name, practice, propFirm, detail, equity, violations, error }: {
  name: string | null;
  /** A practice branch of a challenge session: its rules are shown and applied, but it is no attempt. */
  practice?: boolean;
  propFirm: PropFirm | null;
  detail: ChallengeDetail | null;
  /** The session's current equity (the snapshot's), for the distance to the floor. */
  equity: number | null;
  violations: Violation[];
  error: string | null;
}) {
  if (!propFirm && !detail && violations.length === 0) return null;
  const status = violations.length ? 'violated' : (detail?.status ?? propFirm?.status ?? 'active');
  const phase = detail?.phase ?? (propFirm?.currentPhase as ChallengeDetail['phase'] | undefined);
  const d = detail;
  const kind = d ? effectiveFloorKind(d) : null;
  const room = d && equity !== null ? equity - d.effectiveFloor : null;
  const roomCls = room === null ? '' : room <= 0 ? 'neg' : d && room < d.dailyLossLimit * 0.25 ? 'warn' : '';
  const target = d?.profitTarget ?? null;
  const targetPct = d && target ? Math.max(0, Math.min(100, (100 * d.profit) / target)) : 0;
  const limit = d ? consistencyLimit(d) : null;
  const bestOk = d ? limit === null || d.bestDay < limit : true;
  const tradingDays = d?.tradingDays ?? propFirm?.tradingDaysCount ?? 0;
  const locked = d?.drawdownLocked ?? propFirm?.drawdownLocked ?? false;
  const closedNote = d && status !== 'active' && violations.length === 0 ? outcomeText(d) : null;

  return (
    <section class={`card challenge status-${status}`} data-testid="challenge" data-detail-status={d?.status}>
      <div class="ticket-head">
        <h3>{practice ? 'Practice rules' : 'Challenge rules'}</h3>
        <span class={`badge badge-${status}`} data-testid="challenge-status">
          {STATUS_LABEL[status as keyof typeof STATUS_LABEL] ?? cap(status)}
        </span>
      </div>
      <p class="ch-sub small">
        <span class="mono muted">{d?.name ?? name ?? 'Challenge'}</span>
        {phase && <span data-testid="challenge-phase">{practice ? `Practice of the ${(PHASE_LABEL[phase] ?? cap(phase)).toLowerCase()}` : (PHASE_LABEL[phase] ?? cap(phase))}</span>}
        {d && (
          <span class="muted">
            {d.plan.size} · {d.plan.policy} · max {d.maxContracts} contracts
          </span>
        )}
      </p>
      <Violations violations={violations} />
      {d?.pausedForDay && (
        <p class="paused" data-testid="paused" role="status">
          Paused for the day: a soft daily-loss breach. Orders are refused until the next trade date.
        </p>
      )}
      <dl class="rules">
        {d && (
          <>
            <Row
              label="Trailing floor"
              value={money(d.trailingFloor)}
              testid="trailing-floor"
              cls={kind !== 'daily' ? 'eff' : ''}
              note={kind !== 'daily' ? <EffTag /> : null}
              title="Maximum loss: trails the best end-of-day balance until it locks"
            />
            <Row
              label="Daily-loss floor"
              value={d.dailyLossFloor === null ? '—' : money(d.dailyLossFloor)}
              testid="daily-loss-floor"
              cls={kind === 'daily' || kind === 'both' ? 'eff' : ''}
              note={kind === 'daily' || kind === 'both' ? <EffTag /> : null}
              title={`Today's start equity − ${money(d.dailyLossLimit)} (${d.plan.dailyLossMode === 'soft' ? 'pauses the day' : 'ends the challenge'})`}
            />
            <Row label="Room to floor" value={money(room)} testid="floor-room" cls={roomCls} title="Current equity − the effective floor" />
          </>
        )}
        <dt>Trading days</dt>
        <dd class="mono" data-testid="trading-days">
          {tradingDays}
          {d ? ` / ${d.minTradingDays}` : ''}
        </dd>
        <dt>Drawdown</dt>
        <dd data-testid="drawdown">{locked ? (d ? `Locked at ${money(d.trailingFloor)}` : 'Locked') : 'Trailing'}</dd>
        {d && (
          <>
            <dt>Best day</dt>
            <dd>
              <span class={`mono ${signClass(d.bestDay)}`} data-testid="best-day">
                {money(d.bestDay)}
              </span>
              <div class={`rule-sub ${bestOk ? '' : 'warn'}`} data-testid="consistency">
                {limit === null ? `must stay below ${d.consistencyPct}% of profit` : `limit ${money(limit)} (${d.consistencyPct}% of profit)`}
              </div>
            </dd>
          </>
        )}
      </dl>
      {d && target !== null && (
        <div class="target" data-testid="target">
          <div class="target-line">
            <span class="muted">Profit / target</span>
            <span class="mono">
              <span class={signClass(d.profit)} data-testid="profit">
                {money(d.profit)}
              </span>{' '}
              / <span data-testid="profit-target">{money(target)}</span>
            </span>
          </div>
          <div class="progress" title={`Target balance ${money(d.targetBalance)}`}>
            <div style={{ width: `${targetPct}%` }} />
          </div>
        </div>
      )}
      {d && target === null && (
        <div class="target-line">
          <span class="muted">Profit this phase</span>
          <span class={`mono ${signClass(d.profit)}`} data-testid="profit">
            {money(d.profit)}
          </span>
        </div>
      )}
      {error && <p class="error small">{error}</p>}
      {closedNote && (
        <p class={status === 'passed' ? 'pass' : 'muted'} data-testid="challenge-outcome">
          {closedNote}
        </p>
      )}
    </section>
  );
}

function EffTag() {
  return (
    <span class="eff-tag" title="The higher floor: trading stops here first">
      effective
    </span>
  );
}

/** The violations the session heard, each with how its figure is counted. */
function Violations({ violations }: { violations: Violation[] }) {
  return (
    <>
      {violations.map((v, i) => (
        <div class="violation" role="alert" data-testid="violation" key={i}>
          <strong>{v.rule ? RULE_LABEL[v.rule] ?? v.rule : 'Violation'}</strong>
          <p>{v.message}</p>
          <p class="mono small">
            at {utc(v.time)} · value {money(v.value)} · limit {money(v.limit)}
          </p>
          {v.rule && RULE_ARITHMETIC[v.rule] && (
            <p class="small muted" data-testid="violation-arithmetic">
              {RULE_ARITHMETIC[v.rule]}
            </p>
          )}
        </div>
      ))}
    </>
  );
}
