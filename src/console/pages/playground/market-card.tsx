// The playground's market card: instrument, timeframe, dates and pace of a run, with the run's
// refusal or note under them.

import { ErrorLine, LabelledSelect } from '../../ui.tsx';
import { INSTRUMENTS, TIMEFRAMES } from './types.ts';

const SPEEDS = [0, 1, 2, 5, 10, 25, 50].map((s) => ({ value: String(s), label: s === 0 ? 'Max' : `${s}×` }));

/** What a run plays: instrument, timeframe and trade dates. */
export interface Market {
  instrument: string;
  timeframe: string;
  startDate: string;
  endDate: string;
}

export interface MarketCardProps {
  market: Market;
  onChange: (patch: Partial<Market>) => void;
  speed: number;
  onSpeed: (speed: number) => void;
  runError: string | null;
  runNote: string | null;
}

/** The timeframes offered, with a run's own first when it is not among them. */
const timeframeChoices = (tf: string): readonly string[] => ((TIMEFRAMES as readonly string[]).includes(tf) ? TIMEFRAMES : [tf, ...TIMEFRAMES]);

export function MarketCard({ market, onChange, speed, onSpeed, runError, runNote }: MarketCardProps) {
  return (
    <div class="card pg-market">
      <div class="row">
        <LabelledSelect label="Instrument" name="instrument" value={market.instrument} choices={INSTRUMENTS} onPick={(instrument) => onChange({ instrument })} />
        <LabelledSelect label="Timeframe" name="timeframe" value={market.timeframe} choices={timeframeChoices(market.timeframe)} onPick={(timeframe) => onChange({ timeframe })} />
        <label>
          From
          <input type="date" name="startDate" value={market.startDate} onInput={(e) => onChange({ startDate: e.currentTarget.value })} />
        </label>
        <label>
          To
          <input type="date" name="endDate" value={market.endDate} onInput={(e) => onChange({ endDate: e.currentTarget.value })} />
        </label>
        <LabelledSelect label="Speed" name="speed" value={String(speed)} choices={SPEEDS} onPick={(s) => onSpeed(Number(s))} />
      </div>
      <ErrorLine error={runError} />
      {runNote && (
        <p class="notice pg-run-note" data-testid="run-note">
          {runNote}
        </p>
      )}
    </div>
  );
}
