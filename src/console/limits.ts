// The browser bundle's bounds (it imports no server module, so its limits live here, not in config.ts).

/** Hub connection attempts (start or reconnect) before the page gives up and says so: about ten minutes. */
export const HUB_ATTEMPTS_MAX = 64;

/** Above this many new bars a chart append is one setData over the merged rows instead of per-bar updates. */
export const CHART_UPDATES_PER_APPEND_MAX = 50;
