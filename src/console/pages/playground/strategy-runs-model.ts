// The tabs under the editor (trades, logs, optimise, and the open strategy's runs) and the list of
// the open strategy's runs, read again when one of its runs ends.

import { useState } from 'preact/hooks';
import { playground } from '../../api.ts';
import type { Run } from './types.ts';

export type Tab = 'trades' | 'logs' | 'runs' | 'optimise';

export interface TabsModel {
  tab: Tab;
  setTab(t: Tab): void;
  /** The open strategy's runs (null: not read yet, or no strategy open). */
  runs: Run[] | null;
  setRuns(r: Run[] | null): void;
  runsError: string | null;
  setRunsError(message: string | null): void;
  refreshRuns(strategyId: string): void;
}

export function useTabs(): TabsModel {
  const [tab, setTab] = useState<Tab>('trades');
  const [runs, setRuns] = useState<Run[] | null>(null);
  const [runsError, setRunsError] = useState<string | null>(null);
  return {
    tab, setTab, runs, setRuns, runsError, setRunsError,
    refreshRuns: (id) =>
      void playground<{ runs: Run[] }>('GET', `strategies/${encodeURIComponent(id)}/runs`)
        .then((r) => {
          setRuns(r.runs);
          setRunsError(null);
        })
        .catch((e) => setRunsError(e.message)),
  };
}
