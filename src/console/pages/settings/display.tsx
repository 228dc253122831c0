// Display preferences, kept in this browser: the time zone every time on the console is shown in
// (time-format.ts), and the replay start form's default instrument and timeframe (preferences.ts).

import { useEffect, useState } from 'preact/hooks';
import { sim } from '../../api.ts';
import { setStartDefaults, startDefaults } from '../../preferences.ts';
import { formatTime, setTimeZone, TIME_ZONES, type TimeZoneChoice, timeZoneChoice, zoneLabel } from '../../time-format.ts';
import { TIMEFRAMES } from '../desk/model.ts';

export function DisplayPreferences() {
  const [zone, setZone] = useState<TimeZoneChoice>(timeZoneChoice());
  const [defaults, setDefaults] = useState(startDefaults());
  const [symbols, setSymbols] = useState<{ symbol: string; label: string }[]>([]);
  const [now] = useState(Date.now());
  useEffect(() => {
    sim<{ contracts: { name: string; description: string; symbolId: string; id: string }[] }>('Contract/available', {}).then(
      (r) => setSymbols(r.contracts.map((c) => ({ symbol: c.symbolId, label: `${c.name} · ${c.description}` }))),
      () => setSymbols([]),
    );
  }, []);
  const pickZone = (e: Event) => {
    const z = (e.target as HTMLSelectElement).value as TimeZoneChoice;
    setTimeZone(z);
    setZone(z);
  };
  const pick = (k: 'symbol' | 'timeframe') => (e: Event) => {
    const d = { ...defaults, [k]: (e.target as HTMLSelectElement).value };
    setStartDefaults(d);
    setDefaults(d);
  };
  return (
    <section class="card" data-testid="display-preferences">
      <h2>Display</h2>
      <div class="row">
        <label>
          Time zone
          <select name="timeZone" value={zone} onChange={pickZone}>
            {TIME_ZONES.map((z) => (
              <option value={z.value}>{z.label}</option>
            ))}
          </select>
        </label>
        <label>
          Default instrument
          <select name="defaultSymbol" value={defaults.symbol} onChange={pick('symbol')}>
            {(symbols.length ? symbols : [{ symbol: defaults.symbol, label: defaults.symbol }]).map((s) => (
              <option value={s.symbol}>{s.label}</option>
            ))}
          </select>
        </label>
        <label>
          Default timeframe
          <select name="defaultTimeframe" value={defaults.timeframe} onChange={pick('timeframe')}>
            {TIMEFRAMES.map((t) => (
              <option value={t}>{t}</option>
            ))}
          </select>
        </label>
      </div>
      <p class="muted small" data-testid="time-zone-example">
        Times read {formatTime(now)} {zoneLabel()} now ({zone === 'UTC' ? 'UTC, as the API speaks' : 'the API still speaks UTC'}). Kept in this browser.
      </p>
    </section>
  );
}
