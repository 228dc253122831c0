// The charts' time axes in the zone Settings chose (time-format.ts), as every other time the console
// writes: the crosshair's label and the axis' tick marks alike, so one bar never reads at two times.
// lightweight-charts places its day and month marks at UTC boundaries; a mark that is not midnight in
// the chosen zone says its time too (`03-02 18:00` in CT for 00:00 UTC), so no label claims a
// midnight that is not one.

import { type Time, TickMarkType } from 'lightweight-charts';
import { formatTime } from './time-format.ts';

/** A tick mark's label in the chosen zone. */
export function zonedTickMark(time: Time, type: TickMarkType): string {
  const t = formatTime((time as number) * 1000); // YYYY-MM-DD HH:MM:SS
  const midnight = t.endsWith('00:00:00');
  switch (type) {
    case TickMarkType.Year:
      return midnight ? t.slice(0, 4) : t.slice(0, 16);
    case TickMarkType.Month:
      return midnight ? t.slice(0, 7) : t.slice(5, 16);
    case TickMarkType.DayOfMonth:
      return midnight ? t.slice(5, 10) : t.slice(5, 16);
    case TickMarkType.TimeWithSeconds:
      return t.slice(11, 19);
    default:
      return t.slice(11, 16);
  }
}

/** The options that put a chart's axis and crosshair in the chosen zone (`seconds`: show them). */
export function zonedTimeOptions(seconds: boolean) {
  return {
    localization: { timeFormatter: (t: Time) => formatTime((t as number) * 1000).slice(0, seconds ? 19 : 16) },
    tickMarkFormatter: zonedTickMark,
  };
}
