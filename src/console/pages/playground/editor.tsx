// The Python editor: CodeMirror 6 (basicSetup: line numbers, history, brackets, search) with the
// Python grammar and the One Dark theme. A failed run's line is marked with a lint diagnostic
// (underline, gutter marker, hover message) and a line highlight that carries `data-error-line`.

import { python } from '@codemirror/lang-python';
import { lintGutter, setDiagnostics } from '@codemirror/lint';
import { StateEffect, StateField } from '@codemirror/state';
import { oneDark } from '@codemirror/theme-one-dark';
import { Decoration, type DecorationSet, keymap } from '@codemirror/view';
import { indentWithTab } from '@codemirror/commands';
import { basicSetup, EditorView } from 'codemirror';
import { useEffect, useRef } from 'preact/hooks';

export interface EditorError {
  line: number; // 1-based
  message: string;
}

const setErrorLine = StateEffect.define<number | null>();

/** The highlighted error line, kept in place while the text around it changes. */
const errorLineField = StateField.define<DecorationSet>({
  create: () => Decoration.none,
  update(deco, tr) {
    deco = deco.map(tr.changes);
    for (const e of tr.effects) {
      if (!e.is(setErrorLine)) continue;
      if (e.value === null || e.value > tr.state.doc.lines) deco = Decoration.none;
      else {
        const line = tr.state.doc.line(e.value);
        deco = Decoration.set([Decoration.line({ attributes: { class: 'cm-error-line', 'data-error-line': String(e.value) } }).range(line.from)]);
      }
    }
    return deco;
  },
  provide: (f) => EditorView.decorations.from(f),
});

const theme = EditorView.theme({
  '&': { height: '100%', fontSize: '13px' },
  '.cm-scroller': { fontFamily: 'var(--mono)', lineHeight: '1.5' },
  '.cm-error-line': { backgroundColor: 'rgba(239, 83, 80, 0.16)' },
  '.cm-gutters': { backgroundColor: '#1b1f27', borderRight: '1px solid #2a3140' },
});

interface Props {
  /** The text document `docKey` was opened with, loaded when `docKey` changes (and at mount). */
  value: string;
  docKey: number;
  onChange: (code: string) => void;
  error: EditorError | null;
}

export function CodeEditor({ value, docKey, onChange, error }: Props) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  const changed = useRef(onChange);
  changed.current = onChange;

  useEffect(() => {
    const v = new EditorView({
      parent: host.current!,
      doc: value,
      extensions: [
        basicSetup,
        keymap.of([indentWithTab]),
        python(),
        oneDark,
        theme,
        // Long lines (docstrings, comments) wrap at the column's width instead of running under its edge.
        EditorView.lineWrapping,
        lintGutter(),
        errorLineField,
        EditorView.updateListener.of((u) => {
          if (u.docChanged) changed.current(u.state.doc.toString());
        }),
      ],
    });
    view.current = v;
    return () => v.destroy();
  }, []);

  // A new document (a template or strategy was opened): loaded when `docKey` changes. `value` is
  // the text that document was opened with, never the editor's own echo: a load effect Preact drops
  // and queues again on a later render (a re-render before paint) still loads the right text.
  useEffect(() => {
    const v = view.current;
    if (!v || v.state.doc.toString() === value) return;
    v.dispatch({ changes: { from: 0, to: v.state.doc.length, insert: value } });
  }, [docKey]);

  useEffect(() => {
    const v = view.current;
    if (!v) return;
    if (!error || error.line > v.state.doc.lines) {
      v.dispatch(setDiagnostics(v.state, []));
      v.dispatch({ effects: setErrorLine.of(null) });
      return;
    }
    const line = v.state.doc.line(error.line);
    const indent = /^\s*/.exec(line.text)![0].length;
    v.dispatch(setDiagnostics(v.state, [{ from: line.from + indent, to: line.to, severity: 'error', message: error.message, source: 'Python' }]));
    v.dispatch({ effects: [setErrorLine.of(error.line), EditorView.scrollIntoView(line.from, { y: 'center' })] });
  }, [error?.line, error?.message]);

  return <div class="pg-editor" ref={host} data-testid="editor" data-error-line={error ? String(error.line) : ''} />;
}
