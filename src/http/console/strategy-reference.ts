// The strategy API reference the console shows beside the editor, cut from docs/playground.md when
// the console is built (index.ts hands it to the bundle as a constant), so the page and the document
// are one text and never differ: everything before "## Speed" (the strategy, ctx, orders, fills,
// indicators, examples, errors, modules), then the "### Statistics" section of the HTTP API (the
// formulas of the figures the result shows), as a section of its own.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const DOC_PATH = join(import.meta.dir, '..', '..', '..', 'docs', 'playground.md');
const API_END = '\n## Speed\n';
const STATISTICS = '\n### Statistics\n';

/** The reference's markdown out of the playground document's text. */
export function strategyReference(doc: string): string {
  const end = doc.indexOf(API_END);
  const stats = doc.indexOf(STATISTICS);
  if (end < 0 || stats < 0) throw new Error('docs/playground.md: the "## Speed" or "### Statistics" heading is missing');
  const statsEnd = doc.indexOf('\n### ', stats + STATISTICS.length);
  const statistics = doc.slice(stats + 1, statsEnd < 0 ? undefined : statsEnd).replace(/^### /, '## ');
  return `${doc.slice(0, end).trimEnd()}\n\n${statistics.trimEnd()}\n`;
}

/** The reference of the document as it is on disk. */
export function readStrategyReference(): string {
  return strategyReference(readFileSync(DOC_PATH, 'utf8'));
}
