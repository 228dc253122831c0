// The SQLite file's integrity, looked at while the server runs: pages garbled after the start (a
// failing disk, a stray write) are otherwise noticed only by the requests that read them. Every
// `intervalMs`, PRAGMA quick_check runs in a worker on a read-only connection of its own (off the
// request path and the event loop), bounded by `timeoutMs` (a check that takes longer is stopped
// and counts as nothing). A failing check turns /health degraded (`database: "error"`) and logs
// once (src/service/store-health.ts), until a check passes.

import type { StoreHealth } from './store-health.ts';

export interface IntegrityWatchSettings {
  /** The SQLite file; ':memory:' has nothing to check. */
  path: string;
  intervalMs: number;
  timeoutMs: number;
}

export class IntegrityWatch {
  private timer: ReturnType<typeof setInterval> | null = null;
  private running: Promise<string | null> | null = null;

  constructor(
    private readonly settings: IntegrityWatchSettings,
    private readonly health: StoreHealth,
  ) {}

  start(): void {
    if (this.settings.path === ':memory:') return;
    this.timer ??= setInterval(() => void this.checkNow(), this.settings.intervalMs);
    this.timer.unref?.();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** Runs one check now (or joins the one running): null when the file passed, else the finding. */
  checkNow(): Promise<string | null> {
    this.running ??= this.check().finally(() => (this.running = null));
    return this.running;
  }

  private async check(): Promise<string | null> {
    const finding = await quickCheck(this.settings.path, this.settings.timeoutMs);
    if (finding === undefined) return null; // over its bound: nothing learnt
    const damage = finding === 'ok' ? null : finding;
    this.health.integrity(damage);
    return damage;
  }
}

/** quick_check's answer in a worker; undefined when it did not answer within `timeoutMs` (the worker is stopped). */
function quickCheck(path: string, timeoutMs: number): Promise<string | undefined> {
  const worker = new Worker(new URL('../store/quick-check-worker.ts', import.meta.url).href);
  return new Promise<string | undefined>((resolve) => {
    const timer = setTimeout(() => resolve(undefined), timeoutMs);
    worker.onmessage = (event: MessageEvent<{ finding: string }>) => {
      clearTimeout(timer);
      resolve(event.data.finding);
    };
    worker.onerror = (event: ErrorEvent) => {
      clearTimeout(timer);
      resolve(`the check failed: ${event.message}`);
    };
    worker.postMessage({ path });
  }).finally(() => worker.terminate());
}
