// The boundary rules of the house style, enforced: imports point one way, the deterministic core
// reads no clock and no randomness, and only the store speaks SQL.
import { describe, expect, it } from 'bun:test';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { functionLengths } from './tidy/functions.ts';
import LONG from './tidy/long-functions.json';

const ROOT = join(import.meta.dir, '..');
const SRC = join(ROOT, 'src');

function files(dir: string, ext = /\.tsx?$/): string[] {
  return readdirSync(dir).flatMap((name) => {
    if (name === 'node_modules' || name.startsWith('.')) return [];
    const p = join(dir, name);
    return statSync(p).isDirectory() ? files(p, ext) : ext.test(p) ? [p] : [];
  });
}

/** A parsed TypeScript file (the compiler's own parser, so strings, templates and regexes are told from code). */
function parse(path: string, text: string): ts.SourceFile {
  return ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true, path.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
}

/** Every comment of a TypeScript file: literals (which may hold `//`) are blanked out first. */
function commentsOf(path: string, text: string): { line: number; text: string }[] {
  const sf = parse(path, text);
  const chars = text.split('');
  const literal = new Set([
    ts.SyntaxKind.StringLiteral,
    ts.SyntaxKind.NoSubstitutionTemplateLiteral,
    ts.SyntaxKind.TemplateHead,
    ts.SyntaxKind.TemplateMiddle,
    ts.SyntaxKind.TemplateTail,
    ts.SyntaxKind.RegularExpressionLiteral,
    ts.SyntaxKind.JsxText,
  ]);
  const visit = (node: ts.Node) => {
    if (literal.has(node.kind)) for (let i = node.getStart(sf); i < node.end; i++) if (chars[i] !== '\n') chars[i] = ' ';
    ts.forEachChild(node, visit);
  };
  visit(sf);
  const blanked = chars.join('');
  return [...blanked.matchAll(/\/\/.*|\/\*[\s\S]*?\*\//g)].map((m) => ({
    line: sf.getLineAndCharacterOfPosition(m.index).line + 1,
    text: text.slice(m.index, m.index + m[0].length),
  }));
}

/** Comments (`#` lines and docstrings) of a Python file. */
function pythonCommentsOf(text: string): { line: number; text: string }[] {
  return [...text.matchAll(/#.*|"""[\s\S]*?"""/g)].map((m) => ({ line: text.slice(0, m.index).split('\n').length, text: m[0] }));
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
  // log.ts: the server's one logger, the composition root's sink when its caller names none.
  service: ['store', 'data', 'engine', 'challenge', 'domain', 'lib', 'config.ts', 'log.ts', 'runner'],
  http: ['service', 'store', 'data', 'engine', 'challenge', 'domain', 'lib', 'config.ts'],
  admin: ['service', 'data', 'challenge', 'domain', 'lib', 'config.ts', 'instance.ts'],
  // The pure core's limits: import-free but for lib, so every layer of the server may read them.
  'core-limits.ts': ['lib'],
  // Browser code: its own files, npm packages and the pure domain (the roll rules, the indicators,
  // timeframe buckets: one copy for server and browser); it reaches the server through HTTP. Its API
  // types come from the server's wire shapes, by `import type` only (the rule below).
  console: ['domain'],
};

/**
 * The wire shapes the console may take its API types from (`import type` + `Static`): TypeBox values
 * in modules that import nothing of the server but each other, the engine's enums and the pure
 * limits, so the console's type check and bundle never reach the server.
 */
const WIRE_SHAPES = /^http\/(shared\/schemas|[a-z]+\/([a-z]+-)?shapes)\.ts$/;
const WIRE_SHAPE_IMPORTS = /^(@sinclair\/typebox|engine\/types\.ts|core-limits\.ts)$/;

/** Each import or re-export of a file: its module specifier and whether it is type-only (`import type { … }`). */
function importDeclarations(path: string, text: string): { spec: string; typeOnly: boolean }[] {
  const out: { spec: string; typeOnly: boolean }[] = [];
  for (const st of parse(path, text).statements) {
    if (ts.isImportDeclaration(st) && ts.isStringLiteral(st.moduleSpecifier)) out.push({ spec: st.moduleSpecifier.text, typeOnly: !!st.importClause?.isTypeOnly });
    if (ts.isExportDeclaration(st) && st.moduleSpecifier && ts.isStringLiteral(st.moduleSpecifier)) out.push({ spec: st.moduleSpecifier.text, typeOnly: st.isTypeOnly });
  }
  return out;
}
for (const [from, allowed] of Object.entries(ALLOWED)) if (!['lib', 'console', 'core-limits.ts'].includes(from)) allowed.push('core-limits.ts');
ALLOWED.lib.push('core-limits.ts');

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
        // The console's type-only imports of the wire shapes: checked by the next rule.
        if (from === 'console' && target === 'http') continue;
        if (target !== from && !allowed.includes(target)) bad.push(`${f.path} imports ${spec}`);
      }
    }
    expect(bad).toEqual([]);
  });

  it("the console takes API types from the server's wire shapes by `import type` only, and the shapes import nothing of the server", () => {
    const bad: string[] = [];
    for (const f of ALL) {
      const inConsole = layer(f.path) === 'console';
      const shapes = WIRE_SHAPES.test(f.path);
      // Only a console file naming the server's http folder can break the rule: spare the others the parse.
      if (!shapes && !(inConsole && f.text.includes('/http/'))) continue;
      for (const { spec, typeOnly } of importDeclarations(f.path, readFileSync(join(SRC, f.path), 'utf8'))) {
        const target = spec.startsWith('.') ? relative(SRC, join(SRC, f.path, '..', spec)) : spec;
        if (inConsole && layer(target) === 'http' && !(typeOnly && WIRE_SHAPES.test(target))) bad.push(`${f.path} imports ${spec}${typeOnly ? '' : ' (not type-only)'}`);
        if (shapes && !WIRE_SHAPES.test(target) && !WIRE_SHAPE_IMPORTS.test(target)) bad.push(`${f.path} imports ${spec}`);
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

  it('no comment points at a file outside the repository (name the document instead: "the product spec")', () => {
    // Absolute paths: a system folder, or any absolute path naming a file (routes like /api/sim/… name none).
    const ABSOLUTE = /(?<![\w.\/<>…-])\/(?:(?:work|home|tmp|usr|etc|var|opt|root|mnt|srv)\/[\w.\/-]*|[\w-]+(?:\/[\w.-]+)*\.[a-z]{1,4}\b)/g;
    const RELATIVE = /(?<![\w.\/-])\.{1,2}\/[\w.\/-]*/g;
    const bad: string[] = [];
    const sources = ['src', 'runner', 'test', 'bench'].flatMap((d) => files(join(ROOT, d), /\.(tsx?|py)$/));
    for (const p of sources) {
      const text = readFileSync(p, 'utf8');
      // Spare the parse when no line but imports names a path.
      const lines = text.split('\n').filter((l) => !/^\s*(import|export|\} from)\b/.test(l));
      if (!lines.some((l) => l.search(ABSOLUTE) >= 0 || l.search(RELATIVE) >= 0)) continue;
      for (const c of p.endsWith('.py') ? pythonCommentsOf(text) : commentsOf(p, text)) {
        for (const m of c.text.matchAll(ABSOLUTE)) bad.push(`${relative(ROOT, p)}:${c.line}: ${m[0]}`);
        // A relative path is read from the file's folder or, as in a command, from the repository root: either
        // way it must stay in the repository and lead to one of its folders (the file may be one still to come).
        for (const m of c.text.matchAll(RELATIVE)) {
          const inside = [dirname(p), ROOT].some((base) => {
            const target = resolve(base, m[0]);
            return !relative(ROOT, target).startsWith('..') && existsSync(dirname(target));
          });
          if (!inside) bad.push(`${relative(ROOT, p)}:${c.line}: ${m[0]}`);
        }
      }
    }
    expect(bad).toEqual([]);
  });

  it('no import cycle among the files of src/', () => {
    const byPath = new Map(ALL.map((f) => [f.path, f]));
    const edges = new Map<string, string[]>();
    for (const f of ALL) {
      const targets = importsOf(f.text)
        .filter((s) => s.startsWith('.'))
        .map((s) => relative(SRC, join(SRC, f.path, '..', s)))
        .filter((t) => byPath.has(t));
      edges.set(f.path, targets);
    }
    // Depth-first search; a back edge to a file on the current path closes a cycle.
    const state = new Map<string, 'open' | 'done'>();
    const stack: string[] = [];
    const cycles: string[] = [];
    const visit = (node: string) => {
      state.set(node, 'open');
      stack.push(node);
      for (const next of edges.get(node) ?? []) {
        if (state.get(next) === 'open') cycles.push([...stack.slice(stack.indexOf(next)), next].join(' → '));
        else if (!state.has(next)) visit(next);
      }
      stack.pop();
      state.set(node, 'done');
    };
    for (const f of [...edges.keys()].sort()) if (!state.has(f)) visit(f);
    expect(cycles).toEqual([]);
  });

  it('functions fit on a screen: only the listed ones exceed the limit, and they may only shrink (test/tidy/long-functions.json)', () => {
    const measured = ['src', 'runner']
      .flatMap((d) => files(join(ROOT, d)))
      .filter((p) => !p.endsWith('.d.ts'))
      .flatMap((p) => functionLengths(relative(ROOT, p), readFileSync(p, 'utf8')));
    const now = new Map(measured.map((f) => [f.key, f.lines]));
    const listed = new Map(LONG.functions.map((f) => [`${f.file}:${f.name}`, f.lines]));
    const bad: string[] = [];
    for (const [key, lines] of now) {
      const ceiling = listed.get(key);
      if (lines <= LONG.limitLines) continue;
      if (ceiling === undefined) bad.push(`${key} has ${lines} lines, over the limit of ${LONG.limitLines}: split it`);
      else if (lines > ceiling) bad.push(`${key} grew from ${ceiling} to ${lines} lines: listed functions may only shrink`);
    }
    for (const [key, ceiling] of listed) {
      const lines = now.get(key);
      if (lines === undefined) bad.push(`${key} (listed at ${ceiling} lines) is gone: remove it from the list`);
      else if (lines <= LONG.limitLines) bad.push(`${key} is down to ${lines} lines, within the limit: remove it from the list`);
    }
    expect(bad).toEqual([]);
  }, 60_000);

  it('one home for limits: no `const X_MAX` outside config.ts and core-limits.ts (console/limits.ts for the browser bundle, which imports no server module), and DAY_S only in lib/time-units.ts', () => {
    const bad: string[] = [];
    for (const f of ALL) {
      if (f.path === 'console/limits.ts') continue;
      for (const m of f.text.matchAll(/\bconst\s+([A-Z][A-Z0-9_]*_MAX(?:_[A-Z]+)?)\s*[:=]/g)) bad.push(`${f.path}: ${m[1]}`);
      if (f.path !== 'lib/time-units.ts' && /\bconst\s+DAY_S\s*[:=]/.test(f.text)) bad.push(`${f.path}: DAY_S`);
    }
    expect(bad).toEqual([]);
  });

  it('one topology: nothing outside the store and the composition root (service/services.ts) asks which database it runs on', () => {
    const bad = ALL.filter((f) => layer(f.path) !== 'store' && f.path !== 'service/services.ts')
      .filter((f) => /\.dialect\b|instanceof\s+(PostgresSql|SqliteSql)\b/.test(f.text))
      .map((f) => f.path);
    expect(bad).toEqual([]);
  });

  it('one logger: the server writes to the injected logger (log.ts), never to the console', () => {
    const bad = ALL.filter((f) => layer(f.path) !== 'console')
      .filter((f) => /\bconsole\.(error|warn|log|info)\(/.test(f.text))
      .map((f) => f.path);
    expect(bad).toEqual([]);
  });

  it('wire words stay in http: no errorCode or HTTP status below it', () => {
    const bad = ALL.filter((f) => ['engine', 'challenge', 'domain', 'data', 'service', 'store'].includes(layer(f.path)))
      .filter((f) => /errorCode|errorMessage|new Response\(/.test(f.text))
      .map((f) => f.path);
    expect(bad).toEqual([]);
  });

  it('typed service inputs: no parameter or field in service/ is typed `unknown` (data from outside is typed where it is read: lib/json.ts, lib/thrown.ts)', () => {
    const bad: string[] = [];
    for (const f of ALL.filter((x) => layer(x.path) === 'service')) {
      const sf = parse(f.path, readFileSync(join(SRC, f.path), 'utf8'));
      const visit = (node: ts.Node) => {
        const typed = ts.isParameter(node) || ts.isPropertySignature(node) || ts.isPropertyDeclaration(node) || ts.isVariableDeclaration(node);
        if (typed && node.type?.kind === ts.SyntaxKind.UnknownKeyword) {
          bad.push(`${f.path}:${sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1} ${node.getText(sf)}`);
        }
        ts.forEachChild(node, visit);
      };
      visit(sf);
    }
    expect(bad).toEqual([]);
  });
});
