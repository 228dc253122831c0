// Display preferences, kept in this browser: the time zone every time on the console is shown in
// (time-format.ts), and the replay start form's default instrument and timeframe (preferences.ts).

import { useEffect, useState } from 'preact/hooks';
import { sim } from '../../api.ts';
import { setStartDefaults, startDefaults } from '../../preferences.ts';
import { formatTime, setTimeZone, TIME_ZONES, type TimeZoneChoice, timeZoneChoice, zoneLabel } from '../../time-format.ts';
import { LabelledSelect } from '../../ui.tsx';
import { TIMEFRAMES } from '../desk/model.ts';

export function DisplayPreferences() {
  const [zone, setZone] = useState<TimeZoneChoice>(timeZoneChoice());
  const [defaults, setDefaults] = useState(startDefaults());
  const [symbols, setSymbols] = useState<{ value: string; label: string }[]>([]);
  const [now] = useState(Date.now());
  useEffect(() => {
    sim<{ contracts: { name: string; description: string; symbolId: string; id: string }[] }>('Contract/available', {}).then(
      (r) => setSymbols(r.contracts.map((c) => ({ value: c.symbolId, label: `${c.name} · ${c.description}` }))),
      () => setSymbols([]),
    );
  }, []);
  const pickZone = (value: string) => {
    const z = value as TimeZoneChoice;
    setTimeZone(z);
    setZone(z);
  };
  const pick = (k: 'symbol' | 'timeframe') => (value: string) => {
    const d = { ...defaults, [k]: value };
    setStartDefaults(d);
    setDefaults(d);
  };
  return (
    <section class="card" data-testid="display-preferences">
      <h2>Display</h2>
      <div class="row">
        <LabelledSelect label="Time zone" name="timeZone" value={zone} choices={TIME_ZONES} onPick={pickZone} />
        <LabelledSelect label="Default instrument" name="defaultSymbol" value={defaults.symbol} choices={symbols.length ? symbols : [defaults.symbol]} onPick={pick('symbol')} />
        <LabelledSelect label="Default timeframe" name="defaultTimeframe" value={defaults.timeframe} choices={TIMEFRAMES} onPick={pick('timeframe')} />
      </div>
      <p class="muted small" data-testid="time-zone-example">
        Times read {formatTime(now)} {zoneLabel()} now ({zone === 'UTC' ? 'UTC, as the API speaks' : 'the API still speaks UTC'}). Kept in this browser.
      </p>
    </section>
  );
}
