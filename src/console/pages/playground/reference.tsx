// The strategy API reference beside the editor: a side panel over the result column with an outline
// of its sections. Its text is docs/playground.md's, cut and handed to the bundle by the server's
// console build (src/http/console/strategy-reference.ts), so the panel and the document never differ.

import { useEffect, useMemo, useRef } from 'preact/hooks';
import { headingsOf, renderMarkdown } from './markdown.tsx';

const MD = PLAYGROUND_REFERENCE_MD;

export function ReferencePanel({ onClose, section }: { onClose: () => void; section?: string }) {
  const body = useRef<HTMLDivElement>(null);
  const goTo = (id: string) => body.current?.querySelector(`#${CSS.escape(id)}`)?.scrollIntoView({ block: 'start' });
  const blocks = useMemo(() => renderMarkdown(MD, goTo), []);
  const outline = useMemo(() => headingsOf(MD).filter((h) => h.level === 2 || h.level === 3), []);
  useEffect(() => {
    if (section) goTo(section);
    const onKey = (e: KeyboardEvent) => e.key === 'Escape' && onClose();
    addEventListener('keydown', onKey);
    return () => removeEventListener('keydown', onKey);
  }, [section]);
  return (
    <aside class="pg-ref card" data-testid="reference" aria-label="Strategy API reference">
      <div class="pg-ref-head">
        <strong>Strategy API reference</strong>
        <button type="button" class="small ghost" onClick={onClose} data-testid="reference-close" title="Close (Esc)">
          ✕
        </button>
      </div>
      <nav class="pg-ref-outline" data-testid="reference-outline">
        {outline.map((h) => (
          <a key={h.id} href={`#${h.id}`} class={`lvl${h.level}`} onClick={(e) => { e.preventDefault(); goTo(h.id); }}>
            {h.text}
          </a>
        ))}
      </nav>
      <div class="pg-ref-body" ref={body} data-testid="reference-body">
        {blocks}
      </div>
    </aside>
  );
}
