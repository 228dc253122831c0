// Bracket templates (src/console/pages/desk/templates-model.ts): made from the ticket's fields,
// saved, renamed and deleted by name, and read back from a store that may hold anything.
import { describe, expect, it } from 'bun:test';
import { BRACKET_TEMPLATES_MAX } from '../../src/console/limits.ts';
import { type BracketTemplate, describeTemplate, fromTicket, parseTemplates, removed, renamed, saved } from '../../src/console/pages/desk/templates-model.ts';

const scalp: BracketTemplate = { name: 'Scalp', slTicks: 8, tpTicks: 16, slTrailing: false };
const runner: BracketTemplate = { name: 'Runner', slTicks: 40, tpTicks: null, slTrailing: true };

describe('bracket templates', () => {
  it('are made from the ticket’s bracket fields: blank is no leg, a trailing stop-loss needs a stop-loss', () => {
    expect(fromTicket(' Scalp ', { sl: '8', tp: '16', slTrailing: false }, [])).toEqual(scalp);
    expect(fromTicket('Runner', { sl: '40', tp: '', slTrailing: true }, [])).toEqual(runner);
    expect(fromTicket('Target', { sl: '', tp: '20', slTrailing: true }, [])).toEqual({ name: 'Target', slTicks: null, tpTicks: 20, slTrailing: false });
    expect(fromTicket('None', { sl: '', tp: '', slTrailing: false }, [])).toBe('Set a stop-loss or a take-profit to keep as a template');
    expect(fromTicket('Half', { sl: '2.5', tp: '', slTrailing: false }, [])).toBe('Stop-loss and take-profit are whole ticks, at least 1');
    expect(fromTicket('  ', { sl: '8', tp: '', slTrailing: false }, [])).toBe('Name the template');
    expect(fromTicket('scalp', { sl: '8', tp: '', slTrailing: false }, [scalp])).toBe('A template named scalp exists');
  });

  it('are saved (one name replaces its template), renamed to a free name, and deleted', () => {
    const list = saved([], scalp) as BracketTemplate[];
    expect(saved(list, runner)).toEqual([scalp, runner]);
    expect(saved(list, { ...scalp, slTicks: 10 })).toEqual([{ ...scalp, slTicks: 10 }]);
    expect(renamed([scalp, runner], 'Scalp', ' Quick ')).toEqual([{ ...scalp, name: 'Quick' }, runner]);
    expect(renamed([scalp, runner], 'Scalp', 'runner')).toBe('A template named runner exists');
    expect(renamed([scalp, runner], 'Scalp', 'SCALP')).toEqual([{ ...scalp, name: 'SCALP' }, runner]);
    expect(removed([scalp, runner], 'Scalp')).toEqual([runner]);
    const full = Array.from({ length: BRACKET_TEMPLATES_MAX }, (_, i) => ({ ...scalp, name: `T${i}` }));
    expect(saved(full, runner)).toBe(`At most ${BRACKET_TEMPLATES_MAX} templates: delete one first`);
  });

  it('are read back keeping only well-formed ones', () => {
    expect(parseTemplates([scalp, runner])).toEqual([scalp, runner]);
    expect(parseTemplates('x')).toEqual([]);
    expect(parseTemplates([scalp, { ...scalp }, { name: 'Bad', slTicks: 0, tpTicks: null }, null, { name: 'T', slTicks: null, tpTicks: 4, slTrailing: true }])).toEqual([scalp, { name: 'T', slTicks: null, tpTicks: 4, slTrailing: false }]);
  });

  it('say their legs', () => {
    expect(describeTemplate(scalp)).toBe('SL 8 · TP 16');
    expect(describeTemplate(runner)).toBe('SL 40 trailing · no TP');
  });
});
