// The boundary rules of the house style, enforced: imports point one way, the deterministic core
// reads no clock and no randomness, and only the store speaks SQL.
import { describe, expect, it } from 'bun:test';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const SRC = join(import.meta.dir, '..', 'src');

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? files(p) : /\.tsx?$/.test(p) ? [p] : [];
  });
}

/** Source text without comment lines, so rules judge code, not prose about it. */
function code(text: string): string {
  return text
    .split('\n')
    .filter((l) => !/^\s*(\/\/|\/\*|\*)/.test(l))
    .join('\n');
}

const ALL = files(SRC).map((p) => ({ path: relative(SRC, p), text: code(readFileSync(p, 'utf8')) }));

function importsOf(text: string): string[] {
  return [...text.matchAll(/^\s*(?:import|export)[^'"]*from\s+['"]([^'"]+)['"]/gm)].map((m) => m[1]);
}

/** Top folder of a source file (`engine`, `http`, …) or the file name for top-level files. */
function layer(path: string): string {
  if (path.startsWith('../runner/')) return 'runner';
  return path.includes('/') ? path.split('/')[0] : path;
}

/** Which layers each layer may import (besides itself). */
const ALLOWED: Record<string, string[]> = {
  lib: [],
  domain: ['lib'],
  engine: ['domain', 'lib', 'data'],
  challenge: ['engine', 'domain', 'lib', 'data'],
  data: ['domain', 'lib'],
  store: ['data', 'engine', 'challenge', 'domain', 'lib'],
  service: ['store', 'data', 'engine', 'challenge', 'domain', 'lib', 'config.ts', 'runner'],
  http: ['service', 'store', 'data', 'engine', 'challenge', 'domain', 'lib', 'config.ts'],
  admin: ['service', 'data', 'challenge', 'domain', 'lib', 'config.ts', 'instance.ts'],
  // Browser code: its own files and npm packages only; it reaches the server through HTTP.
  console: [],
};

describe('tidy', () => {
  it('imports point one way: http → service → engine/challenge/data/store → domain → lib', () => {
    const bad: string[] = [];
    for (const f of ALL) {
      const from = layer(f.path);
      const allowed = ALLOWED[from];
      if (!allowed) continue;
      for (const spec of importsOf(f.text)) {
        if (!spec.startsWith('.')) continue;
        const target = layer(relative(SRC, join(SRC, f.path, '..', spec)));
        if (target !== from && !allowed.includes(target)) bad.push(`${f.path} imports ${spec}`);
      }
    }
    expect(bad).toEqual([]);
  });

  it('the runner child bundles only the pure core (engine, domain, data, lib), and the runner host nothing of src', () => {
    const RUNNER = join(import.meta.dir, '..', 'runner');
    const bad: string[] = [];
    for (const p of files(RUNNER)) {
      const rel = relative(RUNNER, p);
      const inChild = rel.startsWith('child/');
      for (const spec of importsOf(code(readFileSync(p, 'utf8')))) {
        if (!spec.startsWith('.')) continue;
        const target = relative(SRC, join(p, '..', spec));
        if (target.startsWith('..')) continue; // inside runner/
        const ok = inChild && ['engine', 'domain', 'data', 'lib'].includes(layer(target)) && !target.startsWith('data/generator');
        if (!ok) bad.push(`runner/${rel} imports ${spec}`);
      }
    }
    expect(bad).toEqual([]);
  });

  it('engine, challenge and domain never import elysia or bun:sqlite, and engine never imports challenge', () => {
    const bad = ALL.filter((f) => ['engine', 'challenge', 'domain', 'data'].includes(layer(f.path)))
      .flatMap((f) => importsOf(f.text).filter((s) => s === 'elysia' || s === 'bun:sqlite').map((s) => `${f.path}: ${s}`));
    expect(bad).toEqual([]);
  });

  it('the deterministic core reads no clock and no randomness', () => {
    const bad = ALL.filter((f) => ['engine', 'challenge', 'domain'].includes(layer(f.path)) || f.path.startsWith('data/generator'))
      .filter((f) => /Date\.now\(|Math\.random\(|performance\.now\(|setTimeout\(|setInterval\(/.test(f.text))
      .map((f) => f.path);
    expect(bad).toEqual([]);
  });

  it('only the store imports bun:sqlite', () => {
    const bad = ALL.filter((f) => layer(f.path) !== 'store' && importsOf(f.text).includes('bun:sqlite')).map((f) => f.path);
    expect(bad).toEqual([]);
  });

  it('API families never import each other: what two families share lives in http/shared', () => {
    const family = (path: string) => /^http\/(sim|legacy|playground|web|hubs)\//.exec(path)?.[1];
    const bad: string[] = [];
    for (const f of ALL) {
      const from = family(f.path);
      if (!from) continue;
      for (const spec of importsOf(f.text)) {
        const to = spec.startsWith('.') ? family(relative(SRC, join(SRC, f.path, '..', spec))) : undefined;
        if (to && to !== from) bad.push(`${f.path} imports ${spec}`);
      }
    }
    expect(bad).toEqual([]);
  });

  it('wire words stay in http: no errorCode or HTTP status below it', () => {
    const bad = ALL.filter((f) => ['engine', 'challenge', 'domain', 'data', 'service', 'store'].includes(layer(f.path)))
      .filter((f) => /errorCode|errorMessage|new Response\(/.test(f.text))
      .map((f) => f.path);
    expect(bad).toEqual([]);
  });
});
