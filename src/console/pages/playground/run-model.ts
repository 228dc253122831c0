// A run of the playground page: started (POST run), followed over its event stream to its end, the
// result kept; a refusal because another run of the user is going follows that run instead; stop,
// pace, and any earlier run opened by id. `busy` covers the page's requests (run, save, stop).

import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, playground } from '../../api.ts';
import { followExecution, type Follow } from './stream.ts';
import type { Execution, ExecutionProgress } from './types.ts';

export type Busy = 'run' | 'save' | 'stop' | null;

/** The run's refusal or error, its note, and which request is going: the page and the actions share them. */
interface RunSignals {
  error: string | null;
  setError(message: string | null): void;
  note: string | null;
  setNote(message: string | null): void;
  busy: Busy;
  setBusy(b: Busy): void;
}

export interface RunModel extends RunSignals {
  live: ExecutionProgress | null;
  result: Execution | null;
  running: boolean;
  /** Forgets the result (not while a run is going). */
  clear(): void;
  /** POST run with `body`; the run (or the user's run already going) is followed. */
  start(body: Record<string, unknown>, strategyId: string | null): Promise<void>;
  stop(): Promise<void>;
  /** Paces a run going now (0: full speed). */
  pace(speed: number): Promise<void>;
  /** Shows a run by id: followed if it is still going. */
  open(id: string): Promise<void>;
}

interface RunState extends RunSignals {
  live: ExecutionProgress | null;
  setLive(f: ExecutionProgress | null | ((l: ExecutionProgress | null) => ExecutionProgress | null)): void;
  result: Execution | null;
  setResult(e: Execution | null): void;
  follow: { current: Follow | null };
  running: boolean;
}

/** `onEnd`: a followed run ended (the page picks the tab and rereads the strategy's runs). */
export function useRun(onEnd: (e: Execution, strategyId: string | null) => void): RunModel {
  const [live, setLive] = useState<ExecutionProgress | null>(null);
  const [result, setResult] = useState<Execution | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [note, setNote] = useState<string | null>(null);
  const [busy, setBusy] = useState<Busy>(null);
  const follow = useRef<Follow | null>(null);
  useEffect(() => () => follow.current?.stop(), []);
  const running = live !== null && live.status === 'running';
  const st: RunState = { live, setLive, result, setResult, error, setError, note, setNote, busy, setBusy, follow, running };
  const f = followActions(st, onEnd);
  return { live, result, running, error, setError, note, setNote, busy, setBusy, ...requestActions(st, f) };
}

type Following = ReturnType<typeof followActions>;

function followActions(st: RunState, onEnd: (e: Execution, strategyId: string | null) => void) {
  const show = (e: Execution) => {
    st.setLive(e);
    st.setResult(e);
  };
  function startFollowing(id: string, strategyId: string | null, initial?: ExecutionProgress) {
    st.follow.current?.stop();
    st.setLive(initial ?? ({ id, status: 'running', progress: { barsDone: 0, barsTotal: 0 }, totalPnl: 0, totalTrades: 0 } as ExecutionProgress));
    st.follow.current = followExecution(id, st.setLive, (e) => {
      st.follow.current = null;
      show(e);
      onEnd(e, strategyId);
    }, st.setError);
  }

  /** Run refused because another run of this user is going (errorCode 11): follow that one instead. */
  async function attach(id: string, refusal: string) {
    try {
      const ex = (await playground<{ execution: Execution }>('GET', `executions/${encodeURIComponent(id)}`)).execution;
      if (ex.status === 'running') {
        startFollowing(id, ex.strategyId, ex);
        const what = `${ex.templateId ?? (ex.strategyId ? 'a saved strategy' : 'code')} · ${ex.instrument} ${ex.timeframe} · ${ex.startDate}`;
        st.setNote(`A run was already going (one at a time): following it here (${what}). Stop ends it; then Run starts yours.`);
      } else {
        // It ended between the refusal and this read: show its result; Run is free again.
        show(ex);
        st.setNote(`A run was already going and has just ${ex.status}: its result is shown. Run again to start yours.`);
      }
    } catch {
      st.setError(`${refusal} (the Stop button ends it)`);
      st.setLive((l) => l ?? ({ id, status: 'running' } as ExecutionProgress));
    }
  }
  return { show, startFollowing, attach };
}

function requestActions(st: RunState, f: Following): Pick<RunModel, 'clear' | 'start' | 'stop' | 'pace' | 'open'> {
  return {
    async start(body, strategyId) {
      st.setBusy('run');
      st.setResult(null);
      try {
        const r = await playground<{ executionId: string }>('POST', 'run', body);
        f.startFollowing(r.executionId, strategyId);
      } catch (e) {
        const msg = e instanceof Error ? e.message : String(e);
        const already = e instanceof ApiError && e.errorCode === 11;
        const runningId = already ? e.fields.executionId : undefined;
        if (typeof runningId === 'string') await f.attach(runningId, msg);
        else {
          st.setError(already ? `${msg} (the Stop button ends it)` : msg);
          if (already) st.setLive((l) => l ?? ({ status: 'running' } as ExecutionProgress));
        }
      } finally {
        st.setBusy(null);
      }
    },
    stop: () => stopRun(st),
    clear() {
      if (st.running) return;
      st.setResult(null);
      st.setLive(null);
      st.setError(null);
    },
    async pace(speed) {
      if (!st.running) return;
      try {
        await playground('POST', 'speed', { speed: speed === 0 ? 'max' : speed }); // the select's 0 is "Max"; 1–50 otherwise
      } catch (e) {
        st.setError(e instanceof Error ? e.message : String(e));
      }
    },
    async open(id) {
      const r = await playground<{ execution: Execution }>('GET', `executions/${encodeURIComponent(id)}`);
      if (r.execution.status === 'running') f.startFollowing(id, r.execution.strategyId);
      else f.show(r.execution);
    },
  };
}

async function stopRun(st: RunState) {
  st.setBusy('stop');
  try {
    await playground('POST', 'stop', {});
    // A run this page did not start (refused with "already running") has no stream to end it here.
    st.setLive((l) => (l && !l.id ? null : l));
    st.setError(null);
  } catch (e) {
    st.setError(e instanceof Error ? e.message : String(e));
    if (e instanceof ApiError && e.errorCode === 1) st.setLive((l) => (l && l.status === 'running' && !l.id ? null : l));
  } finally {
    st.setBusy(null);
  }
}
