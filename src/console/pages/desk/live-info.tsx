// A live session's row in the start panel's list says which session it is: its span, its clock and
// its progress (GET /api/auth/replay-sessions/:accountId), so two NQ sessions never look alike.

import { useEffect, useState } from 'preact/hooks';
import { auth } from '../../api.ts';
import { formatTime, zoneLabel } from '../../time-format.ts';

interface Info {
  timeframe: string;
  startTime: string;
  endTime: string;
  currentTime: string;
  currentIndex: number;
  totalBars: number;
  playing: boolean;
}

/** The row under a live session's: `2025-03-03 → 2025-03-04 · 1m · at 2025-03-03 10:00 UTC · 600 / 2,760 bars`. */
export function LiveInfo({ accountId }: { accountId: number }) {
  const [info, setInfo] = useState<Info | null>(null);
  useEffect(() => {
    let gone = false;
    auth<Info>('GET', `replay-sessions/${accountId}`)
      .then((r) => !gone && setInfo(r))
      .catch(() => undefined); // the row keeps its name and balance
    return () => {
      gone = true;
    };
  }, [accountId]);
  if (!info) return null;
  // The span as days: the end is the instant after the last day.
  const lastDay = new Date(Date.parse(info.endTime) - 1000).toISOString().slice(0, 10);
  const n = (v: number) => v.toLocaleString('en-US');
  return (
    <tr class="live-info">
      <td colSpan={3} class="muted small mono" data-testid="live-info">
        {info.startTime.slice(0, 10)} → {lastDay} · {info.timeframe} · at {formatTime(info.currentTime).slice(0, 16)} {zoneLabel()} · {n(info.currentIndex)} / {n(info.totalBars)} bars
        {info.playing ? ' · playing' : ''}
      </td>
    </tr>
  );
}
