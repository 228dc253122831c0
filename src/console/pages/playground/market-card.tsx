// The playground's market card: instrument, timeframe, dates and pace of a run, with the run's
// refusal or note under them.

import { ErrorLine } from '../../ui.tsx';
import { INSTRUMENTS, TIMEFRAMES } from './types.ts';

const SPEEDS = [0, 1, 2, 5, 10, 25, 50];

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

export function MarketCard({ market, onChange, speed, onSpeed, runError, runNote }: MarketCardProps) {
  return (
    <div class="card pg-market">
      <div class="row">
        <label>
          Instrument
          <select name="instrument" value={market.instrument} onChange={(e) => onChange({ instrument: e.currentTarget.value })}>
            {INSTRUMENTS.map((i) => (
              <option key={i}>{i}</option>
            ))}
          </select>
        </label>
        <label>
          Timeframe
          <select name="timeframe" value={market.timeframe} onChange={(e) => onChange({ timeframe: e.currentTarget.value })}>
            {(TIMEFRAMES as readonly string[]).includes(market.timeframe) ? null : <option>{market.timeframe}</option>}
            {TIMEFRAMES.map((t) => (
              <option key={t}>{t}</option>
            ))}
          </select>
        </label>
        <label>
          From
          <input type="date" name="startDate" value={market.startDate} onInput={(e) => onChange({ startDate: e.currentTarget.value })} />
        </label>
        <label>
          To
          <input type="date" name="endDate" value={market.endDate} onInput={(e) => onChange({ endDate: e.currentTarget.value })} />
        </label>
        <label>
          Speed
          <select name="speed" value={String(speed)} onChange={(e) => onSpeed(Number(e.currentTarget.value))}>
            {SPEEDS.map((s) => (
              <option key={s} value={String(s)}>
                {s === 0 ? 'Max' : `${s}×`}
              </option>
            ))}
          </select>
        </label>
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
