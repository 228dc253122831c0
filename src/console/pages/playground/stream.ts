// Follows an execution: its Server-Sent Events stream (`progress`, then `done`; the session cookie
// goes along same-origin), and polling GET executions/:id if the stream breaks before `done`.

import { playground } from '../../api.ts';
import type { Execution, ExecutionProgress } from './types.ts';

export interface Follow {
  stop(): void;
}

export function followExecution(
  id: string,
  onProgress: (p: ExecutionProgress) => void,
  onDone: (e: Execution) => void,
  onError: (message: string) => void,
): Follow {
  let finished = false;
  let timer: ReturnType<typeof setTimeout> | null = null;
  const es = new EventSource(`/api/playground/executions/${encodeURIComponent(id)}/events`);

  const finish = (e: Execution) => {
    if (finished) return;
    finished = true;
    es.close();
    if (timer) clearTimeout(timer);
    onDone(e);
  };

  const poll = async () => {
    timer = null;
    if (finished) return;
    try {
      const r = await playground<{ execution: Execution }>('GET', `executions/${encodeURIComponent(id)}`);
      if (finished) return;
      if (r.execution.status !== 'running') return finish(r.execution);
      onProgress(r.execution);
    } catch (e) {
      onError(e instanceof Error ? e.message : String(e));
    }
    if (!finished) timer = setTimeout(poll, 1000);
  };

  es.addEventListener('progress', (ev) => {
    if (!finished) onProgress(JSON.parse((ev as MessageEvent).data));
  });
  es.addEventListener('done', (ev) => finish(JSON.parse((ev as MessageEvent).data)));
  es.onerror = () => {
    // The stream broke before `done` (a proxy, a restart): read the execution instead.
    if (finished) return;
    es.close();
    if (!timer) timer = setTimeout(poll, 300);
  };

  return {
    stop() {
      finished = true;
      es.close();
      if (timer) clearTimeout(timer);
    },
  };
}
