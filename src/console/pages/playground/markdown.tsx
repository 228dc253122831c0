// A small markdown renderer for the strategy reference (docs/playground.md, cut by the server's build):
// the subset that document uses, nothing more. Blocks: headings (ids as GitHub makes them, so the
// document's `#fills` links work), fenced code, tables, lists (numbered or not, with indented
// continuation lines), paragraphs. Inline: `code`, **bold**, *emphasis*, links. Text is rendered as
// text (Preact escapes it): no HTML from the document reaches the page.

import type { ComponentChildren, JSX } from 'preact';

export interface Heading {
  level: number;
  text: string;
  id: string;
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens. */
export function slug(text: string): string {
  return text.toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').trim().replace(/\s/g, '-');
}

/** The text of a heading line without its markup (for the outline and the anchor). */
const plain = (s: string) => s.replace(/`([^`]*)`/g, '$1').replace(/\*\*?([^*]+)\*\*?/g, '$1');

export function headingsOf(md: string): Heading[] {
  const out: Heading[] = [];
  let fenced = false;
  for (const line of md.split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    const m = !fenced && /^(#{1,4}) (.*)$/.exec(line);
    if (m) out.push({ level: m[1].length, text: plain(m[2]), id: slug(plain(m[2])) });
  }
  return out;
}

/** Cells of a table row: split on `|` outside code spans; `\|` is a literal bar. */
function cells(row: string): string[] {
  const out: string[] = [];
  let cur = '';
  let code = false;
  const body = row.trim().replace(/^\|/, '').replace(/\|$/, '');
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if (c === '\\' && body[i + 1] === '|') {
      cur += '|';
      i++;
    } else if (c === '`') {
      code = !code;
      cur += c;
    } else if (c === '|' && !code) {
      out.push(cur.trim());
      cur = '';
    } else cur += c;
  }
  out.push(cur.trim());
  return out;
}

const INLINE = /(`[^`]+`)|(\*\*[^*]+\*\*)|(\*[^*\s][^*]*\*)|(\[[^\]]+\]\([^)]+\))/g;

/** Inline markup of one block's text; `onAnchor` follows a `#section` link inside the reference. */
export function inline(text: string, onAnchor: (id: string) => void): ComponentChildren[] {
  const out: ComponentChildren[] = [];
  let at = 0;
  for (const m of text.matchAll(INLINE)) {
    if (m.index! > at) out.push(text.slice(at, m.index));
    const t = m[0];
    if (m[1]) out.push(<code>{t.slice(1, -1)}</code>);
    else if (m[2]) out.push(<strong>{inline(t.slice(2, -2), onAnchor)}</strong>);
    else if (m[3]) out.push(<em>{inline(t.slice(1, -1), onAnchor)}</em>);
    else {
      const [, label, href] = /^\[([^\]]+)\]\(([^)]+)\)$/.exec(t)!;
      // Only the reference's own sections are links: the browser cannot open the repository's files.
      out.push(href.startsWith('#')
        ? <a href={href} onClick={(e) => { e.preventDefault(); onAnchor(href.slice(1)); }}>{inline(label, onAnchor)}</a>
        : <span>{inline(label, onAnchor)}</span>);
    }
    at = m.index! + t.length;
  }
  if (at < text.length) out.push(text.slice(at));
  return out;
}

const LIST_ITEM = /^(\s*)(-|\d+\.) (.*)$/;

/** The document as blocks of elements. */
export function renderMarkdown(md: string, onAnchor: (id: string) => void): JSX.Element[] {
  const lines = md.split('\n');
  const out: JSX.Element[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    if (line.trim() === '') {
      i++;
    } else if (line.startsWith('```')) {
      const end = lines.indexOf('```', i + 1);
      const stop = end < 0 ? lines.length : end;
      out.push(<pre key={i}><code>{lines.slice(i + 1, stop).join('\n')}</code></pre>);
      i = stop + 1;
    } else if (/^#{1,4} /.test(line)) {
      const [, hashes, text] = /^(#{1,4}) (.*)$/.exec(line)!;
      const Tag = `h${Math.min(hashes.length + 1, 5)}` as 'h2';
      out.push(<Tag key={i} id={slug(plain(text))}>{inline(text, onAnchor)}</Tag>);
      i++;
    } else if (line.startsWith('|') && /^\|[\s|:-]+\|$/.test(lines[i + 1]?.trim() ?? '')) {
      i = table(lines, i, out, onAnchor);
    } else if (LIST_ITEM.test(line)) {
      i = list(lines, i, out, onAnchor);
    } else {
      const start = i;
      while (i < lines.length && lines[i].trim() !== '' && !/^(```|#{1,4} |\|)/.test(lines[i]) && !(i > start && LIST_ITEM.test(lines[i]))) i++;
      out.push(<p key={start}>{inline(lines.slice(start, i).join(' '), onAnchor)}</p>);
    }
  }
  return out;
}

function table(lines: string[], i: number, out: JSX.Element[], onAnchor: (id: string) => void): number {
  const head = cells(lines[i]);
  const start = i;
  i += 2;
  const rows: string[][] = [];
  for (; i < lines.length && lines[i].startsWith('|'); i++) rows.push(cells(lines[i]));
  out.push(
    <div class="pg-ref-table" key={start}>
      <table>
        <thead><tr>{head.map((c, k) => <th key={k}>{inline(c, onAnchor)}</th>)}</tr></thead>
        <tbody>{rows.map((r, j) => <tr key={j}>{r.map((c, k) => <td key={k}>{inline(c, onAnchor)}</td>)}</tr>)}</tbody>
      </table>
    </div>,
  );
  return i;
}

function list(lines: string[], i: number, out: JSX.Element[], onAnchor: (id: string) => void): number {
  const start = i;
  const ordered = /^\s*\d+\. /.test(lines[i]);
  const items: string[] = [];
  for (; i < lines.length; i++) {
    const m = LIST_ITEM.exec(lines[i]);
    if (m) items.push(m[3]);
    else if (/^\s{2,}\S/.test(lines[i]) && items.length > 0) items[items.length - 1] += ` ${lines[i].trim()}`;
    else break;
  }
  const children = items.map((t, k) => <li key={k}>{inline(t, onAnchor)}</li>);
  out.push(ordered ? <ol key={start}>{children}</ol> : <ul key={start}>{children}</ul>);
  return i;
}
