// A form generated from a template's typed params: numbers with their min, max and step, booleans
// as checkboxes, strings as text. Out-of-range numbers are flagged here; the server checks too.

import type { ParamValues, TemplateParam } from './types.ts';

export function defaultsOf(params: readonly TemplateParam[]): ParamValues {
  return Object.fromEntries(params.map((p) => [p.name, p.default]));
}

/** A param schema for saved values without a template: each value's own type, no bounds. */
export function schemaOfValues(values: ParamValues): TemplateParam[] {
  return Object.entries(values).map(([name, v]) => ({
    name,
    label: name,
    type: typeof v === 'boolean' ? 'boolean' : typeof v === 'number' ? 'number' : 'string',
    default: v,
    min: null,
    max: null,
  }));
}

/** Why a value is refused, or null. */
export function paramProblem(p: TemplateParam, v: unknown): string | null {
  if (p.type !== 'number') return null;
  if (typeof v !== 'number' || !Number.isFinite(v)) return 'a number is required';
  if (p.min !== null && v < p.min) return `at least ${p.min}`;
  if (p.max !== null && v > p.max) return `at most ${p.max}`;
  return null;
}

interface Props {
  schema: readonly TemplateParam[];
  values: ParamValues;
  onChange: (values: ParamValues) => void;
  disabled?: boolean;
}

export function ParamsForm({ schema, values, onChange, disabled }: Props) {
  if (schema.length === 0) return <p class="empty">This strategy takes no params.</p>;
  const set = (name: string, v: number | string | boolean) => onChange({ ...values, [name]: v });
  return (
    <div class="pg-params" data-testid="params-form">
      {schema.map((p) => {
        const v = values[p.name] ?? p.default;
        const problem = paramProblem(p, v);
        const range = p.type === 'number' && (p.min !== null || p.max !== null) ? `${p.min ?? '−∞'} – ${p.max ?? '∞'}` : null;
        if (p.type === 'boolean') {
          return (
            <label class="pg-param pg-param-bool" key={p.name} title={p.name}>
              <input type="checkbox" name={p.name} checked={v === true} disabled={disabled} onChange={(e) => set(p.name, e.currentTarget.checked)} />
              <span>{p.label}</span>
            </label>
          );
        }
        return (
          <label class="pg-param" key={p.name} title={`${p.name}${range ? ` (${range})` : ''}`}>
            <span>
              {p.label}
              {range && <span class="pg-range"> {range}</span>}
            </span>
            <input
              type={p.type === 'number' ? 'number' : 'text'}
              name={p.name}
              value={String(v)}
              min={p.min ?? undefined}
              max={p.max ?? undefined}
              step={p.type === 'number' ? (p.step ?? 'any') : undefined}
              disabled={disabled}
              class={problem ? 'invalid' : ''}
              onInput={(e) => {
                const raw = e.currentTarget.value;
                set(p.name, p.type === 'number' ? (raw === '' ? Number.NaN : Number(raw)) : raw);
              }}
            />
            {problem && <span class="pg-param-problem">{problem}</span>}
          </label>
        );
      })}
    </div>
  );
}
