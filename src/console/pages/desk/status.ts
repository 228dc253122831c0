// How the desk follows the session's state: what a step, a jump or a status read answered, the bars
// the market hub reports, and the outcome of a session that ended without an answer of this page
// saying so. Plain functions over the session's parts (session-feed.ts wires them to the hubs).

import { ApiError, sim } from '../../api.ts';
import { loadChallengeDetails } from '../../challenge.ts';
import type { ChartBars } from './chart-bars.ts';
import type { SessionCore } from './core.ts';
import { apiBar, type HubBars } from './feed.ts';
import type { Book } from './live.ts';
import { type Account, type Advance, type PropFirm, readStatus, type Trade, type Violation } from './model.ts';

/** The parts the session's state flows into. */
export interface Session {
  core: SessionCore;
  tables: { setBook(b: Book): void; refreshTables(): Promise<void> };
  bars: ChartBars;
  setPropFirm(p: PropFirm): void;
  setViolations(f: (v: Violation[]) => Violation[]): void;
  /** The user hub is up: the tables follow its events. */
  userUp(): boolean;
}

/** The server's answer to a step or jump while the session plays (whoever started it). */
export const isPlayingRefusal = (e: unknown) => e instanceof ApiError && e.status === 503 && /playing/i.test(e.message);

/** Applies what a step, a jump or a status read answered (its bars are drawn by drawTo). */
export function applyStatus(s: Session, r: Advance): void {
  const { core, tables } = s;
  const L = core.live.current;
  L.totalBars = r.totalBars;
  s.bars.setProgress({ currentIndex: Math.max(L.drawn, r.currentIndex), totalBars: r.totalBars });
  if (r.account) core.serverSnap(r.account);
  if (r.propFirm) {
    L.propFirm = true;
    s.setPropFirm(r.propFirm);
  }
  if (r.violations.length) s.setViolations((v) => [...v, ...r.violations]);
  // Without the user hub, the answer is all the page hears of a fill.
  if (r.filledOrders.length && !s.userUp()) {
    core.setFlash(r.filledOrders.map((f) => `#${f.orderId} filled ${f.fillQty} @ ${core.fmt.price(f.fillPrice)}`).join(' · '));
    tables.refreshTables();
  }
  const decided = r.propFirm && r.propFirm.status !== 'active' ? r.propFirm.status : r.violations.length ? 'violated' : null;
  if (decided === 'violated' || decided === 'passed') {
    tables.refreshTables();
    core.refreshChallenge();
    core.finish(decided, r.account, r.violations[0]?.message ?? null, 0);
  } else if (r.currentIndex >= r.totalBars && r.totalBars > 0) core.reachedEnd();
}

/** Reads the session's status and draws up to it; a session playing elsewhere is shown as playing. */
export const syncStatus = (s: Session) =>
  s.core.serial(async () => {
    if (s.core.live.current.over) return;
    try {
      const st = await readStatus(s.core.accountId);
      // Behind the server (or without its clock yet): every bar up to its clock, and the clock.
      const L = s.core.live.current;
      if (st.currentIndex > L.drawn || L.clock === null) await s.bars.catchUp().catch(() => null);
      applyStatus(s, { ...st, filledOrders: [], violations: st.violations ?? [] });
    } catch (e) {
      if (isPlayingRefusal(e)) s.core.setPlaying(true);
      else throw e;
    }
  });

/** The status at load; a session left playing (another tab) is paused to be read. */
export async function statusForLoad(core: SessionCore): Promise<Advance> {
  try {
    return await readStatus(core.accountId);
  } catch (e) {
    if (!isPlayingRefusal(e)) throw e;
    await sim('Replay/pause', { accountId: core.accountId });
    core.setFlash('The session was playing: paused to load it here');
    return readStatus(core.accountId);
  }
}

/**
 * The session ended without an answer of this page saying so (a challenge decided during
 * playback, Replay/end from another tab): its outcome from the REST reads that still answer.
 */
async function concluded({ core, tables }: Session): Promise<void> {
  const { accountId, live } = core;
  const challengeId = core.metaRef.current.challengeAccountId;
  const [t, a, details] = await Promise.all([
    sim<{ trades: Trade[] }>('Trade/search', { accountId }).catch(() => null),
    sim<{ accounts: Account[] }>('Account/search', {}).catch(() => null),
    challengeId !== null ? loadChallengeDetails().catch(() => null) : null,
  ]);
  if (live.current.over) return;
  const d = details?.find((c) => c.accountId === challengeId) ?? null;
  const reason = d?.status === 'violated' ? 'violated' : d?.status === 'passed' ? 'passed' : 'ended';
  const row = a?.accounts.find((x) => x.id === accountId);
  const account = row ? { balance: row.balance, equity: row.balance, unrealizedPnl: 0, marginUsed: 0, positions: 0, pendingOrders: 0 } : live.current.snap;
  tables.setBook({ positions: [], orders: [], fills: t?.trades ?? live.current.book.fills });
  if (account) core.setSnap(account);
  core.refreshChallenge();
  core.finish(reason, account, d?.outcome?.message ?? null, t?.trades.length ?? live.current.book.fills.length);
}

/** The market hub's played bars, whoever advanced the session (this page, another tab, a bot). */
export const onBars = (s: Session, p: HubBars) =>
  s.core
    .serial(async () => {
      const L = s.core.live.current;
      if (L.over) return;
      const drew = await s.bars.drawTo(p.currentIndex, p.bars.map(apiBar));
      // The server's clock, which a jump into a closed market moves without a bar.
      if (p.currentTime) s.bars.setClock(p.currentTime);
      // Bars this page did not answer for (playback, another tab): the snapshot follows the price.
      if (drew && L.book.positions.length) s.core.reprice();
      // The session moved (this page's step or jump too): the rule figures with it.
      s.core.refreshChallenge();
      if (p.ended) await concluded(s);
      else if (L.totalBars > 0 && p.currentIndex >= L.totalBars) s.core.reachedEnd();
    })
    .catch((e) => s.core.setControlError(e instanceof Error ? e.message : String(e)));
