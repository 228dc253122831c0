// The desk before a session: start one (instrument, dates, timeframe, and a plain replay account or
// one of the user's challenge accounts), or resume one of the live sessions.

import { useEffect, useState } from 'preact/hooks';
import { startDefaults } from '../../preferences.ts';
import { sim } from '../../api.ts';
import { attempt, ErrorLine, LabelledSelect, money } from '../../ui.tsx';
import {
  type Account,
  type Contract,
  type DataRange,
  loadDataRanges,
  forgetMeta,
  describeSession,
  type SessionMeta,
  TIMEFRAMES,
} from './model.ts';
import { AccountsTable } from './accounts-table.tsx';
import { LiveInfo } from './live-info.tsx';
import { type Confirm, useConfirm } from './confirm.ts';
import { EndedSessions } from './ended-list.tsx';
import { instrumentsBody, MoreInstruments, pickedContracts } from './start-instruments.tsx';

const addDays = (d: string, n: number) => new Date(Date.parse(`${d}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10);

export function StartPanel({ onStarted, notice }: { onStarted: (m: SessionMeta) => void; notice?: string | null }) {
  const [contracts, setContracts] = useState<Contract[] | null>(null);
  const [accounts, setAccounts] = useState<Account[] | null>(null);
  const [contractId, setContractId] = useState('');
  const [extras, setExtras] = useState<string[]>([]);
  const [ranges, setRanges] = useState<DataRange[] | null>(null);
  const [startDate, setStartDate] = useState('');
  const [endDate, setEndDate] = useState('');
  const [timeframe, setTimeframe] = useState(startDefaults().timeframe);
  const [account, setAccount] = useState('new');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [listError, setListError] = useState<string | null>(null);
  const confirmEnd = useConfirm<number>();

  const loadAccounts = () =>
    attempt(setListError, async () => {
      const r = await sim<{ accounts: Account[] }>('Account/search', { onlyActiveAccounts: false });
      setAccounts(r.accounts);
    });

  useEffect(() => {
    attempt(setError, async () => {
      const r = await sim<{ contracts: Contract[] }>('Contract/available', {});
      setContracts(r.contracts);
      // The instrument chosen in Settings, else NQ.
      const nq = r.contracts.find((c) => c.symbolId === startDefaults().symbol) ?? r.contracts.find((c) => c.name.startsWith('NQ')) ?? r.contracts[0];
      if (nq) setContractId(nq.id);
    });
    loadAccounts();
  }, []);

  useEffect(() => {
    loadDataRanges().then(setRanges, () => setRanges([]));
  }, []);

  // The data's span for the chosen instrument, as the server states it, sets sensible default dates.
  const range = ranges?.find((r) => r.contractId === contractId) ?? null;
  // The date as it is when the effect runs (after paint), not as this render saw it: a date typed
  // meanwhile is kept (a stale closure put the default over it).
  useEffect(() => {
    if (!range) return;
    setStartDate((typed) => {
      if (typed && typed >= range.firstDate && typed <= range.lastDate) return typed;
      const s = addDays(range.lastDate, -7);
      return s < range.firstDate ? range.firstDate : s;
    });
  }, [range?.contractId, ranges]);

  const challenges = (accounts ?? []).filter((a) => a.name.startsWith('CHALLENGE-'));
  const live = (accounts ?? []).filter((a) => a.name.startsWith('REPLAY-') && a.canTrade);
  const ended = (accounts ?? []).filter((a) => a.name.startsWith('REPLAY-') && !a.canTrade);

  const start = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    await attempt(setError, async () => {
      const contract = contracts?.find((c) => c.id === contractId);
      if (!contract) throw new Error('Pick an instrument');
      const challenge = account === 'new' ? null : challenges.find((c) => String(c.id) === account) ?? null;
      if (endDate && endDate <= startDate) throw new Error(`End date: pick a day after ${startDate}. A session replays its start date through its end date, at least two days; leave it empty to replay through the last day held.`);
      const body: Record<string, unknown> = { ...instrumentsBody(contractId, extras), startDate, timeframe };
      if (endDate) body.endDate = endDate;
      if (challenge) body.accountId = challenge.id;
      const r = await sim<{ accountId: number }>('Replay/start', body);
      // The server names the session and states its span, history and contract.
      const instruments = pickedContracts(contracts ?? [], contractId, extras.filter((id) => id !== contractId));
      onStarted({ ...(await describeSession(r.accountId)), endDate: endDate || null, ...(instruments ? { instruments } : {}) });
    });
    setBusy(false);
  };

  // The server says what the session is, so a session started in another browser (or by a bot)
  // opens whole here too.
  const resume = async (a: Account) => {
    await attempt(setListError, async () => onStarted(await describeSession(a.id)));
  };

  const endLive = async (a: Account) => {
    confirmEnd.cancel();
    await attempt(setListError, async () => {
      await sim('Replay/end', { accountId: a.id });
      forgetMeta(a.id);
      await loadAccounts();
    });
  };

  return (
    <div class="desk-start">
      <form class="card start-form" onSubmit={start} data-testid="start-form">
        <h2>New replay session</h2>
        {notice && <p class="notice" data-testid="notice">{notice}</p>}
        <div class="start-grid">
          <label>
            Instrument
            <select name="contract" value={contractId} onChange={(e) => setContractId((e.target as HTMLSelectElement).value)} disabled={!contracts}>
              {(contracts ?? []).map((c) => (
                <option value={c.id} key={c.id}>
                  {c.name} — {c.description}
                </option>
              ))}
            </select>
          </label>
          <LabelledSelect label="Timeframe" name="timeframe" value={timeframe} choices={TIMEFRAMES} onPick={setTimeframe} />
          <label>
            Start date (UTC)
            <input name="startDate" type="date" required value={startDate} min={range?.firstDate} max={range?.lastDate} onInput={(e) => setStartDate((e.target as HTMLInputElement).value)} />
          </label>
          <label>
            End date <span class="muted">(empty: through {range?.lastDate ?? 'the last day held'})</span>
            <input name="endDate" type="date" value={endDate} min={startDate} onInput={(e) => setEndDate((e.target as HTMLInputElement).value)} />
          </label>
          {contracts && <MoreInstruments contracts={contracts} first={contractId} extras={extras.filter((id) => id !== contractId)} setExtras={setExtras} />}
          <label class="span-2">
            Account
            <select name="account" value={account} onChange={(e) => setAccount((e.target as HTMLSelectElement).value)}>
              <option value="new">New replay account — $50,000.00</option>
              {challenges
                .filter((c) => c.canTrade)
                .map((c) => (
                  <option value={String(c.id)} key={c.id}>
                    {c.name} (challenge) — {money(c.balance)}
                  </option>
                ))}
            </select>
          </label>
        </div>
        <p class="muted small">
          {range ? (
            <>
              Data held for this instrument: <span class="mono" data-testid="data-first">{range.firstDate}</span> to <span class="mono" data-testid="data-last">{range.lastDate}</span>. Bars before the start date are loaded as chart history.
            </>
          ) : (
            'Bars before the start date are loaded as chart history.'
          )}
        </p>
        <div class="row">
          <button type="submit" class="primary" disabled={busy || !contracts}>
            {busy ? 'Starting…' : 'Start replay'}
          </button>
        </div>
        <ErrorLine error={error} />
      </form>

      <section class="card live-list">
        <h2>Live sessions</h2>
        {accounts === null && !listError && <p class="muted">Loading…</p>}
        {accounts !== null && live.length === 0 && <p class="empty">No live replay session. Start one on the left.</p>}
        {live.length > 0 && (
          <AccountsTable
            testid="live-sessions"
            accounts={live}
            last=""
            cell={(a) => <LiveActions a={a} confirmEnd={confirmEnd} onResume={resume} onEnd={endLive} />}
            below={(a) => <LiveInfo accountId={a.id} />}
          />
        )}
        <h2 class="gap">Ended sessions</h2>
        {accounts !== null && <EndedSessions accounts={ended} />}
        <h2 class="gap">Challenge accounts</h2>
        {accounts !== null && challenges.length === 0 && <p class="empty">No challenge account: start an evaluation under <a href="#/challenges">Challenges &amp; payouts</a>.</p>}
        {challenges.length > 0 && (
          <AccountsTable
            testid="challenge-accounts"
            accounts={challenges}
            last="Status"
            cell={(a) => <td>{a.canTrade ? <button type="button" class="small" onClick={() => setAccount(String(a.id))}>Trade it</button> : <span class="muted">closed</span>}</td>}
          />
        )}
        <ErrorLine error={listError} />
      </section>
    </div>
  );
}

/** A live session's row actions: resume it, or end it after a second click. */
function LiveActions({ a, confirmEnd, onResume, onEnd }: { a: Account; confirmEnd: Confirm<number>; onResume: (a: Account) => void; onEnd: (a: Account) => void }) {
  return (
    <td class="actions">
      {confirmEnd.asked === a.id ? (
        <span class="end-row" data-testid="end-row-confirm">
          <span class="neg small">End it for good?</span>{' '}
          <button type="button" class="small sell" onClick={() => onEnd(a)}>
            End
          </button>{' '}
          <button type="button" class="small ghost" onClick={confirmEnd.cancel}>
            Keep
          </button>
        </span>
      ) : (
        <>
          <button type="button" class="small primary" onClick={() => onResume(a)}>
            Resume
          </button>{' '}
          <button type="button" class="small ghost" onClick={() => confirmEnd.ask(a.id)}>
            End
          </button>
        </>
      )}
    </td>
  );
}
