// What a price chart tells the browser tests through its element's dataset (`data-bars`,
// `data-last-close`, …): written after every change of its bars or overlays, cleared when the
// chart goes. Read from our own rows, not series.data(), which copies every bar on each call.

import type { ChartOverlays } from './chart-overlays.ts';
import type { ChartRows } from './chart-rows.ts';

const KEYS = [
  'bars', 'volumeBars', 'priceLines', 'markers', 'lastClose', 'lastTime', 'appendMs', 'priceLineTitles', 'lines', 'drawingLines', 'drawingPrices',
  'width', 'axisMark', 'drawnFrom', 'shapes', 'shapeLabels',
];

export function writeChartDataset(el: HTMLElement, rows: ChartRows, overlays: ChartOverlays): void {
  const d = el.dataset;
  d.bars = String(rows.candles.length);
  d.drawnFrom = String(rows.drawnFrom);
  d.volumeBars = String(rows.volumes.length);
  d.lastTime = rows.lastTime === null ? '' : new Date(rows.lastTime * 1000).toISOString();
  d.priceLines = String(overlays.priceLineCount);
  d.markers = String(overlays.markerCount);
  d.lastClose = rows.lastClose === null ? '' : String(rows.lastClose);
}

export function clearChartDataset(el: HTMLElement): void {
  for (const k of KEYS) delete el.dataset[k];
}
