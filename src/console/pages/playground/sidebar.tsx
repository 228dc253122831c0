// The left column: the template gallery (category, difficulty, params) and the user's strategies.

import { utc } from '../../ui.tsx';
import type { StrategySummary, Template } from './types.ts';

export type Source = { kind: 'template'; id: string } | { kind: 'strategy'; id: string } | { kind: 'scratch' };

interface Props {
  templates: readonly Template[] | null;
  strategies: readonly StrategySummary[] | null;
  source: Source;
  onTemplate: (t: Template) => void;
  onStrategy: (s: StrategySummary) => void;
  onDelete: (s: StrategySummary) => void;
  onScratch: () => void;
}

export function Sidebar({ templates, strategies, source, onTemplate, onStrategy, onDelete, onScratch }: Props) {
  return (
    <aside class="pg-side">
      <section class="card pg-side-card">
        <h3>Templates</h3>
        {templates === null ? (
          <p class="empty">Loading templates…</p>
        ) : (
          <ul class="pg-list" data-testid="templates">
            {templates.map((t) => (
              <li key={t.id}>
                <button
                  type="button"
                  class={`pg-item ${source.kind === 'template' && source.id === t.id ? 'selected' : ''}`}
                  data-template={t.id}
                  title={t.description}
                  onClick={() => onTemplate(t)}
                >
                  <span class="pg-item-name">{t.name}</span>
                  <span class="pg-tags">
                    <span class={`pg-tag cat-${t.category}`}>{t.category}</span>
                    <span class={`pg-tag diff-${t.difficulty}`}>{t.difficulty}</span>
                  </span>
                  <span class="pg-item-sub">{t.params.map((p) => p.name).join(' · ') || 'no params'}</span>
                </button>
              </li>
            ))}
          </ul>
        )}
      </section>
      <section class="card pg-side-card">
        <div class="pg-side-head">
          <h3>My strategies</h3>
          <button type="button" class="small ghost" onClick={onScratch} title="Start from an empty strategy">
            + Blank
          </button>
        </div>
        {strategies === null ? (
          <p class="empty">Loading…</p>
        ) : strategies.length === 0 ? (
          <p class="empty">None yet. Open a template and “Save as strategy” to fork it.</p>
        ) : (
          <ul class="pg-list" data-testid="strategies">
            {strategies.map((s) => (
              <li key={s.id} class="pg-strategy">
                <button
                  type="button"
                  class={`pg-item ${source.kind === 'strategy' && source.id === s.id ? 'selected' : ''}`}
                  data-strategy={s.id}
                  onClick={() => onStrategy(s)}
                >
                  <span class="pg-item-name">{s.name}</span>
                  <span class="pg-item-sub">
                    {s.instrument} · {s.timeframe} · {utc(s.updatedAt).slice(0, 16)}
                  </span>
                </button>
                <button type="button" class="small ghost pg-delete" title={`Delete ${s.name}`} aria-label={`Delete ${s.name}`} onClick={() => onDelete(s)}>
                  ×
                </button>
              </li>
            ))}
          </ul>
        )}
      </section>
    </aside>
  );
}
