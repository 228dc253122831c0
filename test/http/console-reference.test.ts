// The strategy API reference the console shows (src/http/console/strategy-reference.ts): cut from
// docs/playground.md when the bundle is built, so the page and the document are one text.
import { describe, expect, it } from 'bun:test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readStrategyReference, strategyReference } from '../../src/http/console/strategy-reference.ts';
import { makeApp } from '../support/app.ts';

const DOC = readFileSync(join(import.meta.dir, '..', '..', 'docs', 'playground.md'), 'utf8');

describe('strategy reference', () => {
  it('is the document up to "## Speed", then its Statistics section as a section of its own', () => {
    const md = strategyReference(DOC);
    expect(md.startsWith(DOC.slice(0, DOC.indexOf('\n## Speed\n')).trimEnd())).toBe(true);
    expect(md).toContain('\n## Statistics\n');
    expect(md).toContain('| `calmarRatio` |');
    for (const gone of ['\n## Speed\n', '\n## HTTP API\n', '\n### Errors\n\n| Endpoint']) expect(md).not.toContain(gone);
    expect(() => strategyReference('# Nothing here\n')).toThrow('docs/playground.md');
  });

  it('goes into the console bundle whole', async () => {
    const t = await makeApp();
    const html = await (await t.app.handle(new Request('http://localhost/'))).text();
    const version = /\/console\/app\.([0-9a-f]{12})\.js/.exec(html)![1];
    const js = await (await t.app.handle(new Request(`http://localhost/console/app.${version}.js`))).text();
    // The minifier may quote the text its own way: every line without a character it would escape is there as is.
    const lines = readStrategyReference().split('\n').filter((l) => l.length > 20 && !/["'`\\$]/.test(l));
    expect(lines.length).toBeGreaterThan(50);
    expect(lines.filter((l) => !js.includes(l))).toEqual([]);
  });
});
