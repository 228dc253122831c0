// The document in the editor: where it came from (a template, a saved strategy, a blank page), its
// name, its code and the code as opened or last saved (`dirty` when they differ), its params with
// their schema, and the note or refusal of the last save.

import { useState } from 'preact/hooks';
import { defaultsOf, paramProblem, schemaOfValues } from './params-form.tsx';
import type { Source } from './sidebar.tsx';
import type { ParamValues, StrategyDetail, Template, TemplateParam } from './types.ts';

export const BLANK = `# A strategy: on_bar(ctx, bar) runs once per bar, oldest first.
# Orders you ask for fill at the bar's close. The Reference button above lists ctx.

def init(ctx):
    ctx.count = 0

def on_bar(ctx, bar):
    ctx.count += 1
`;

/** A template whose params are exactly these names: its schema (labels, bounds) fits saved values. */
function schemaFor(templates: readonly Template[], values: ParamValues): TemplateParam[] {
  const keys = Object.keys(values).sort().join(',');
  const t = templates.find((t) => t.params.map((p) => p.name).sort().join(',') === keys && keys !== '');
  return t ? t.params.map((p) => ({ ...p, default: values[p.name] ?? p.default })) : schemaOfValues(values);
}

export interface DocumentModel {
  source: Source;
  strategy: StrategyDetail | null;
  name: string;
  setName(v: string): void;
  code: string;
  setCode(v: string): void;
  /** Bumped when a new document is opened in the editor. */
  docKey: number;
  /** The text the document at `docKey` was opened with (never an echo of the editor's own edits). */
  openedCode: string;
  schema: TemplateParam[];
  params: ParamValues;
  setParams(v: ParamValues): void;
  dirty: boolean;
  saveError: string | null;
  saveNote: string | null;
  /** The save's outcome: a refusal, or a note (both cleared by null, null). */
  saveMessage(error: string | null, note: string | null): void;
  openTemplate(t: Template): void;
  openStrategy(d: StrategyDetail, templates: readonly Template[]): void;
  openScratch(): void;
  /** The open strategy was deleted: the editor keeps its code as a new document. */
  forgetStrategy(): void;
  /** The editor's code was saved as strategy `d`. */
  saved(d: StrategyDetail): void;
  /** Why the params cannot be run or saved ("Label: why"), or null. */
  paramsProblem(): string | null;
}

export function useDocument(): DocumentModel {
  const [source, setSource] = useState<Source>({ kind: 'scratch' });
  const [strategy, setStrategy] = useState<StrategyDetail | null>(null);
  const [name, setName] = useState('');
  const [code, setCode] = useState(BLANK);
  const [baseCode, setBaseCode] = useState(BLANK); // the code as opened or last saved
  // The opened text goes with its key: an editor loading document N always loads N's text.
  const [opened, setOpened] = useState({ key: 0, code: BLANK });
  const [schema, setSchema] = useState<TemplateParam[]>([]);
  const [params, setParams] = useState<ParamValues>({});
  const [saveError, setSaveError] = useState<string | null>(null);
  const [saveNote, setSaveNote] = useState<string | null>(null);

  const open = (src: Source, s: StrategyDetail | null, n: string, c: string, sch: TemplateParam[], p: ParamValues) => {
    setSource(src);
    setStrategy(s);
    setName(n);
    setCode(c);
    setBaseCode(c);
    setOpened((o) => ({ key: o.key + 1, code: c }));
    setSchema(sch);
    setParams(p);
  };
  const saveMessage = (error: string | null, note: string | null) => {
    setSaveError(error);
    setSaveNote(note);
  };
  return {
    source, strategy, name, setName, code, setCode, docKey: opened.key, openedCode: opened.code, schema, params, setParams, dirty: code !== baseCode, saveError, saveNote, saveMessage,
    openTemplate: (t) => open({ kind: 'template', id: t.id }, null, t.name, t.code, t.params, defaultsOf(t.params)),
    openStrategy: (d, templates) => open({ kind: 'strategy', id: d.id }, d, d.name, d.code, schemaFor(templates, d.params), d.params),
    openScratch: () => open({ kind: 'scratch' }, null, 'My strategy', BLANK, [], {}),
    forgetStrategy: () => {
      setSource({ kind: 'scratch' });
      setStrategy(null);
      setBaseCode('');
    },
    saved: (d) => {
      setStrategy(d);
      setSource({ kind: 'strategy', id: d.id });
      setBaseCode(d.code);
    },
    paramsProblem: () => {
      for (const p of schema) {
        const why = paramProblem(p, params[p.name]);
        if (why) return `${p.label}: ${why}`;
      }
      return null;
    },
  };
}
