// The charts' time axes in the zone Settings chose (time-format.ts), as every other time the console
// writes: the crosshair's label and the axis' tick marks alike, so one bar never reads at two times.
// The marks are time-format.ts's `zonedTickMark` (a mark that is not midnight in the chosen zone says
// its time too, `03-02 18:00` in CT for 00:00 UTC); this file adapts them to lightweight-charts' types.

import type { Time } from 'lightweight-charts';
import { formatTime, zonedTickMark as markOf } from './time-format.ts';

/** A tick mark's label in the chosen zone. */
export function zonedTickMark(time: Time, type: number): string {
  return markOf(time as number, type);
}

/** The options that put a chart's axis and crosshair in the chosen zone (`seconds`: show them). */
export function zonedTimeOptions(seconds: boolean) {
  return {
    localization: { timeFormatter: (t: Time) => formatTime((t as number) * 1000).slice(0, seconds ? 19 : 16) },
    tickMarkFormatter: zonedTickMark,
  };
}
