// PLACEHOLDER catalog of playground strategy templates: the interface is final, the contents are
// replaced by the template catalog's owner. `GET /api/playground/templates` lists TEMPLATES as is.

export interface TemplateParam {
  name: string;
  label: string;
  type: 'number' | 'string' | 'boolean';
  default: number | string | boolean;
  min: number | null;
  max: number | null;
  step?: number;
}

export interface StrategyTemplate {
  id: string;
  name: string;
  description: string;
  category: string;
  difficulty: 'beginner' | 'intermediate' | 'advanced';
  params: TemplateParam[];
  /** The template's Python source, so a user can fork it into a strategy of their own. */
  code: string;
}

export const TEMPLATES: readonly StrategyTemplate[] = Object.freeze([
  {
    id: 'sma-crossover',
    name: 'SMA crossover',
    description: 'Goes long when the fast simple moving average crosses above the slow one, flat when it crosses below.',
    category: 'trend-following',
    difficulty: 'beginner',
    params: [
      { name: 'fast', label: 'Fast period', type: 'number', default: 10, min: 2, max: 200, step: 1 },
      { name: 'slow', label: 'Slow period', type: 'number', default: 30, min: 3, max: 500, step: 1 },
    ],
    code: [
      'def on_bar(ctx, bar):',
      '    fast = ctx.sma(ctx.params["fast"])',
      '    slow = ctx.sma(ctx.params["slow"])',
      '    if fast is None or slow is None:',
      '        return',
      '    if fast > slow and ctx.position == 0:',
      '        ctx.buy(1)',
      '    elif fast < slow and ctx.position > 0:',
      '        ctx.close()',
      '',
    ].join('\n'),
  },
]);

export function findTemplate(id: string): StrategyTemplate | undefined {
  return TEMPLATES.find((t) => t.id === id);
}
