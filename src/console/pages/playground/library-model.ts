// The playground's library: the templates (read once) and the user's saved strategies (read again
// after a save or a delete), with the error of the last read.

import { useState } from 'preact/hooks';
import { playground } from '../../api.ts';
import type { StrategySummary, Template } from './types.ts';

export interface LibraryModel {
  templates: Template[] | null;
  strategies: StrategySummary[] | null;
  /** A failed read of the lists, or of a strategy opened from them. */
  error: string | null;
  setError(message: string | null): void;
  /** Reads the templates; `onFirst` gets the first one (the page opens it). */
  loadTemplates(onFirst: (t: Template) => void): void;
  refreshStrategies(): void;
}

export function useLibrary(): LibraryModel {
  const [templates, setTemplates] = useState<Template[] | null>(null);
  const [strategies, setStrategies] = useState<StrategySummary[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  return {
    templates,
    strategies,
    error,
    setError,
    loadTemplates: (onFirst) =>
      void playground<{ templates: Template[] }>('GET', 'templates')
        .then((r) => {
          setTemplates(r.templates);
          if (r.templates[0]) onFirst(r.templates[0]);
        })
        .catch((e) => setError(e.message)),
    refreshStrategies: () =>
      void playground<{ strategies: StrategySummary[] }>('GET', 'strategies')
        .then((r) => setStrategies(r.strategies))
        .catch((e) => setError(e.message)),
  };
}
