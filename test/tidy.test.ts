// The project's boundary rules (docs/architecture.md), enforced: imports point one way, the
// deterministic core reads no clock and no randomness, only the store speaks SQL and only the
// composition root asks which database it is; limits live in their catalogues; functions, files and
// repeated code only shrink; comments cite only what the repository holds.
import { describe, expect, it } from 'bun:test';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import DUPLICATES from './tidy/duplicates.json';
import { countDuplicates, type DuplicateCounts } from './tidy/duplicates.ts';
import { functionLengths } from './tidy/functions.ts';
import LONG_FILES from './tidy/long-files.json';
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

/**
 * A file's comments as blocks of prose: consecutive line comments joined, comment markers dropped and
 * white space folded, so a name or a path split over two lines reads whole.
 */
function commentBlocks(path: string, text: string): { line: number; text: string }[] {
  const blocks: { line: number; last: number; text: string; lineComment: boolean }[] = [];
  for (const c of path.endsWith('.py') ? pythonCommentsOf(text) : commentsOf(path, text)) {
    const lineComment = /^(\/\/|#)/.test(c.text);
    const body = c.text
      .split('\n')
      .map((l) => l.replace(/^\s*(\/\/+|\/\*+|\*(?!\/)|#+|""")\s?/, '').replace(/\s*(\*\/|""")\s*$/, ''))
      .join(' ');
    const prev = blocks.at(-1);
    if (prev?.lineComment && lineComment && prev.last === c.line - 1) {
      prev.text += ` ${body}`;
      prev.last = c.line;
    } else blocks.push({ line: c.line, last: c.line + c.text.split('\n').length - 1, text: body, lineComment });
  }
  return blocks.map((b) => ({ line: b.line, text: b.text.replace(/\s+/g, ' ') }));
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

/**
 * Module-level state an http module may keep, each with its reason: process-wide memos of constant
 * products (the same for every request, built once) and the response contract's test switch.
 * Anything else a request needs travels in its context (http/shared/request-context.ts).
 */
const HTTP_MODULE_STATE: Record<string, string> = {
  'http/console/index.ts:building': 'the console bundle, built once per process from the sources it ships',
  'http/openapi/scalar.ts:gzipped': "Scalar's bundle gzipped once per process",
  'http/openapi/index.ts:built': "each family's OpenAPI document, built once from its declarations",
  'http/hubs/signalr/messages.ts:serialized': "an event's hub message serialized once for all its subscribers (weakly keyed by its arguments)",
  'http/hubs/shared-args.ts:shared': "an event's arguments built once per target, contract and profile for all its subscribers, both hubs (weakly keyed by the event)",
  'http/shared/response-contract.ts:responseContract': "the response contract's switch and tallies: the test suite turns it on; a server leaves it off",
};

/** A name's properties or elements assigned, or mutated by a method of arrays, maps or sets, anywhere in the text. */
function mutatedIn(text: string, name: string): boolean {
  const head = String.raw`(?<![\w$.])${name.replace(/\$/g, '\\$')}`;
  const access = String.raw`(?:\??\.[A-Za-z_$][\w$]*|\[[^\]\n]*\])`;
  return (
    new RegExp(String.raw`${head}${access}+\s*(?:[-+*/%&|^]|\*\*|\?\?|&&|\|\|)?=(?!=)`).test(text) ||
    new RegExp(String.raw`${head}${access}*\.(?:push|pop|shift|unshift|splice|sort|reverse|fill|copyWithin|set|add|delete|clear)\(`).test(text) ||
    new RegExp(String.raw`\bdelete\s+${head}|Object\.assign\(\s*${head}`).test(text)
  );
}

/**
 * A module's mutable state at the top level: a `let` or `var`; a Map, Set or array made at load,
 * unless typed read-only (`ReadonlySet<…>`); any other value whose contents the module changes; a
 * class's static field that is not `readonly`.
 */
function moduleState(path: string, text: string): { name: string; why: string }[] {
  const sf = parse(path, text);
  const body = code(text);
  const out: { name: string; why: string }[] = [];
  for (const st of sf.statements) {
    if (ts.isVariableStatement(st)) {
      const isConst = (st.declarationList.flags & ts.NodeFlags.Const) !== 0;
      for (const d of st.declarationList.declarations) {
        const name = d.name.getText(sf);
        if (!isConst) {
          out.push({ name, why: 'let' });
          continue;
        }
        let init = d.initializer;
        while (init && (ts.isAsExpression(init) || ts.isSatisfiesExpression(init) || ts.isParenthesizedExpression(init))) init = init.expression;
        const made = init && ts.isNewExpression(init) ? init.expression.getText(sf) : '';
        const readOnly = d.type !== undefined && /^(Readonly|readonly\s)/.test(d.type.getText(sf));
        if (/^(Map|WeakMap|Set|WeakSet|Array)$/.test(made) && !readOnly) out.push({ name, why: `new ${made}` });
        else if (ts.isIdentifier(d.name) && mutatedIn(body, name)) out.push({ name, why: 'changed after load' });
      }
    }
    if (ts.isClassDeclaration(st)) {
      for (const m of st.members) {
        const mods = ts.canHaveModifiers(m) ? (ts.getModifiers(m) ?? []) : [];
        const has = (k: ts.SyntaxKind) => mods.some((x) => x.kind === k);
        if (ts.isPropertyDeclaration(m) && has(ts.SyntaxKind.StaticKeyword) && !has(ts.SyntaxKind.ReadonlyKeyword)) out.push({ name: `${st.name?.text}.${m.name.getText(sf)}`, why: 'static field' });
      }
    }
  }
  return out;
}

/**
 * The catalogues of limits: the server's, the pure core's (every layer may import it), the browser
 * bundle's (it imports no server module) and the runner's (runner/ imports nothing of src/).
 */
const LIMIT_CATALOGUES = ['src/config.ts', 'src/core-limits.ts', 'src/console/limits.ts', 'runner/limits.ts'];
const UNIT_SUFFIX = /_(MS|S|US|NS|CHARS|BYTES|KIB|MIB|GIB|KB|MB|GB|LINES)$/;
/** Units of time are not limits (DAY_S has one home: the rule on `const X_MAX` above). */
const TIME_UNITS = /^(MINUTE|HOUR|DAY|WEEK|YEAR)_(S|MS)$/;
/** Unit-suffixed module constants that are facts, not limits, with the reason. */
const NOT_LIMITS: { reason: string; names: string[] }[] = [
  { reason: 'tables of time units', names: ['src/domain/timeframe.ts:FIXED_UNIT_S', 'src/console/pages/playground/bars.ts:UNIT_S'] },
  { reason: 'the epoch week grid (the first Monday after 1970-01-01)', names: ['src/domain/timeframe.ts:FIRST_MONDAY_S'] },
  {
    reason: "the exchanges' hours and the time zones' standard offsets",
    names: [
      'src/domain/trading-hours.ts:SESSION_OPEN_LOCAL_S',
      'src/domain/trading-hours.ts:CME_CLOSE_LOCAL_S',
      'src/domain/trading-hours.ts:FX_CLOSE_LOCAL_S',
      'src/domain/trading-hours.ts:CHICAGO_STANDARD_OFFSET_S',
      'src/domain/trading-hours.ts:NEW_YORK_STANDARD_OFFSET_S',
    ],
  },
  { reason: 'a sentinel time past every u32 time', names: ['src/engine/types.ts:NO_EVENT_S'] },
  { reason: 'the widths rollups are stored at: a storage format (a change is a migration)', names: ['src/data/rollup.ts:ROLLUP_WIDTHS_S'] },
  { reason: "the bar widths of the import formats", names: ['src/data/import/histdata.ts:HISTDATA_M1_WIDTH_S', 'src/data/import/databento.ts:DATABENTO_RTYPE_WIDTH_S'] },
  {
    reason: 'the sizes of stored records (a bar, a rollup bar in the cache, a packed trade)',
    names: ['src/data/bar-columns.ts:BAR_BYTES', 'src/data/bar-source.ts:ROLLUP_ENTRY_BYTES', 'src/store/playground-runs.ts:PACKED_TRADE_BYTES'],
  },
];

/** Where a file's limits belong. */
function catalogueOf(path: string): string {
  if (path.startsWith('runner/')) return 'runner/limits.ts';
  if (path.startsWith('src/console/')) return 'src/console/limits.ts';
  return ['lib', 'domain', 'data', 'engine', 'challenge'].includes(layer(path.slice('src/'.length))) ? 'src/core-limits.ts' : 'src/config.ts';
}

/** A file's unit-suffixed constants at the top level, with their initializers. */
function unitConstants(path: string, text: string): { name: string; init: string }[] {
  if (!/\bconst\s+[A-Z][A-Z0-9_]*_[A-Z]+\b/.test(text)) return [];
  const sf = parse(path, text);
  return sf.statements
    .filter(ts.isVariableStatement)
    .filter((st) => (st.declarationList.flags & ts.NodeFlags.Const) !== 0)
    .flatMap((st) => [...st.declarationList.declarations])
    .filter((d) => ts.isIdentifier(d.name) && UNIT_SUFFIX.test(d.name.text))
    .map((d) => ({ name: d.name.getText(sf), init: d.initializer?.getText(sf).replace(/\s+/g, ' ') ?? '' }));
}

/**
 * A length ratchet: what is over `limit` must be listed, a listed length may only shrink, and an entry
 * gone or back within the limit leaves the list (a shrunk one need not lower its figure, so parallel
 * branches do not conflict).
 */
function ratchet(now: Map<string, number>, listed: Map<string, number>, limit: number, say: { fix: string; kind: string }): string[] {
  const bad: string[] = [];
  for (const [key, lines] of now) {
    const ceiling = listed.get(key);
    if (lines <= limit) continue;
    if (ceiling === undefined) bad.push(`${key} has ${lines} lines, over the limit of ${limit}: ${say.fix}`);
    else if (lines > ceiling) bad.push(`${key} grew from ${ceiling} to ${lines} lines: listed ${say.kind} may only shrink`);
  }
  for (const [key, ceiling] of listed) {
    const lines = now.get(key);
    if (lines === undefined) bad.push(`${key} (listed at ${ceiling} lines) is gone: remove it from the list`);
    else if (lines <= limit) bad.push(`${key} is down to ${lines} lines, within the limit: remove it from the list`);
  }
  return bad;
}

/** Lines of a file, as `wc -l` counts them for a file ending in a newline. */
function lineCount(text: string): number {
  return text === '' ? 0 : text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
}

/** A file name as a comment writes it: folders optional, one of the kinds of file the repository holds. */
const NAMED_FILE_SOURCE = String.raw`(?<![\w.\/<>*{}…@$%-])((?:[\w-]+\/)*[\w-]+(?:\.[\w-]+)*\.(?:md|tsx?|py|json|sql))(?![\w\/])`;
const NAMED_FILE = new RegExp(NAMED_FILE_SOURCE);
const NAMED_FILE_ALL = new RegExp(NAMED_FILE_SOURCE, 'g');
/** Another repository's file is named with that repository just before it: "dotnet/aspnetcore's HubProtocol.md". */
const UPSTREAM_BEFORE = /[\w.-]+\/[\w.-]+(?:'s)?\s+$/;
/** Files comments name that are not the repository's by design, with the reason (an environment variable's folder, `DATA_DIR/…`, is spared too). */
const NOT_REPOSITORY_FILES: Record<string, string> = {
  'strategy.py': "the user's strategy, as the sandbox names it in tracebacks",
};
let repositoryNames: Set<string> | undefined;

/**
 * Whether a name in a comment of `from` is a file of the repository: read from the file's folder or
 * one above it (`data/ladder-read.ts` in src/service/), from src/, runner/, test/ or docs/, or, a bare
 * name (`hub.ts`), any file of that name.
 */
function namesRepositoryFile(from: string, name: string): boolean {
  for (let dir = dirname(from); !relative(ROOT, dir).startsWith('..'); dir = dirname(dir)) {
    if (existsSync(resolve(dir, name))) return true;
    if (dir === ROOT) break;
  }
  if (['src', 'runner', 'test', 'docs'].some((d) => existsSync(join(ROOT, d, name)))) return true;
  if (name.includes('/')) return false;
  repositoryNames ??= new Set(['src', 'runner', 'test', 'bench', 'docs'].flatMap((d) => files(join(ROOT, d), /./)).map((p) => basename(p)));
  return repositoryNames.has(name);
}

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
    expect(ratchet(now, listed, LONG.limitLines, { fix: 'split it', kind: 'functions' })).toEqual([]);
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

  it('one topology: nothing outside the store and the composition root (instance.ts opens the store, service/services.ts builds the topology) asks which database it runs on', () => {
    // The dialect, the Sql class, a comparison with a backend's name, or the database URL.
    const BACKEND_TEST = /\bdialect\b|instanceof\s+(PostgresSql|SqliteSql)\b|[!=]==?\s*['"](postgres|postgresql|sqlite)['"]|['"](postgres|postgresql|sqlite)['"]\s*[!=]==?|\bdatabaseUrl\b/;
    const ROOTS = ['service/services.ts', 'instance.ts', 'config.ts'];
    const bad = ALL.filter((f) => layer(f.path) !== 'store' && !ROOTS.includes(f.path))
      .filter((f) => BACKEND_TEST.test(f.text))
      .map((f) => `${f.path}: ${BACKEND_TEST.exec(f.text)?.[0]}`);
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

  it('no module-level mutable state in http/: request state travels in the request context (http/shared/request-context.ts)', () => {
    const bad: string[] = [];
    const found = new Set<string>();
    for (const f of ALL.filter((x) => layer(x.path) === 'http')) {
      for (const s of moduleState(f.path, readFileSync(join(SRC, f.path), 'utf8'))) {
        const key = `${f.path}:${s.name}`;
        found.add(key);
        if (!(key in HTTP_MODULE_STATE)) bad.push(`${key} (${s.why}): module-level state outlives the request; carry it in the request context, or list it in HTTP_MODULE_STATE with its reason`);
      }
    }
    for (const key of Object.keys(HTTP_MODULE_STATE)) if (!found.has(key)) bad.push(`${key} is listed in HTTP_MODULE_STATE but is no longer module-level state: remove it from the list`);
    expect(bad).toEqual([]);
  });

  it('one home for limits: unit-suffixed module constants (_MS, _S, _CHARS, _BYTES, _KIB, …) live in the catalogues, runner/ included (runner/limits.ts), and `const X_MAX` too', () => {
    const bad: string[] = [];
    const found = new Set<string>();
    const sources = ['src', 'runner'].flatMap((d) => files(join(ROOT, d))).filter((p) => !p.endsWith('.d.ts'));
    for (const p of sources) {
      const path = relative(ROOT, p);
      if (LIMIT_CATALOGUES.includes(path)) continue;
      const text = readFileSync(p, 'utf8');
      if (path.startsWith('runner/')) for (const m of code(text).matchAll(/\bconst\s+([A-Z][A-Z0-9_]*_MAX(?:_[A-Z]+)?)\s*[:=]/g)) bad.push(`${path}: ${m[1]} (a limit: move it to runner/limits.ts)`);
      for (const c of unitConstants(path, text)) {
        const key = `${path}:${c.name}`;
        if (TIME_UNITS.test(c.name) || /^(limits|coreLimits)\.\w+$/.test(c.init)) continue;
        found.add(key);
        if (!NOT_LIMITS.some((n) => n.names.includes(key))) bad.push(`${key} = ${c.init}: a unit-suffixed limit; move it to ${catalogueOf(path)} (or list a unit or a format's fact in NOT_LIMITS with its reason)`);
      }
    }
    for (const key of NOT_LIMITS.flatMap((n) => n.names)) if (!found.has(key)) bad.push(`${key} is listed in NOT_LIMITS but no longer defined there: remove it from the list`);
    expect(bad).toEqual([]);
  });

  it('files stay short: only the listed ones exceed 400 lines, and they may only shrink (test/tidy/long-files.json)', () => {
    const now = new Map(
      ['src', 'runner']
        .flatMap((d) => files(join(ROOT, d)))
        .map((p) => [relative(ROOT, p), lineCount(readFileSync(p, 'utf8'))] as const),
    );
    const listed = new Map(LONG_FILES.files.map((f) => [f.file, f.lines]));
    expect(ratchet(now, listed, LONG_FILES.limitLines, { fix: 'split it by responsibility', kind: 'files' })).toEqual([]);
  });

  it("comments naming documents name files that exist (another repository's are named with it: \"dotnet/aspnetcore's HubProtocol.md\")", () => {
    const bad: string[] = [];
    for (const p of ['src', 'runner', 'test', 'bench'].flatMap((d) => files(join(ROOT, d), /\.(tsx?|py)$/))) {
      const text = readFileSync(p, 'utf8');
      // Spare the parse when no line but imports names a file.
      if (!text.split('\n').some((l) => !/^\s*(import|export|\} from)\b/.test(l) && NAMED_FILE.test(l))) continue;
      for (const c of commentBlocks(p, text)) {
        for (const m of c.text.matchAll(NAMED_FILE_ALL)) {
          const name = m[1];
          if (UPSTREAM_BEFORE.test(c.text.slice(0, m.index)) || /^[A-Z][A-Z0-9_]*\//.test(name) || name in NOT_REPOSITORY_FILES) continue;
          if (!namesRepositoryFile(p, name)) bad.push(`${relative(ROOT, p)}:${c.line}: ${name} names no file of the repository`);
        }
      }
    }
    expect(bad).toEqual([]);
  }, 60_000);

  it('comments naming a section of docs/decisions.md name one of its `## ` subjects, in quotes', () => {
    const sections = new Set([...readFileSync(join(ROOT, 'docs/decisions.md'), 'utf8').matchAll(/^## (.+)$/gm)].map((m) => m[1].trim()));
    const bad: string[] = [];
    for (const p of ['src', 'runner', 'test', 'bench'].flatMap((d) => files(join(ROOT, d), /\.(tsx?|py)$/))) {
      const text = readFileSync(p, 'utf8');
      if (!text.includes('decisions')) continue;
      for (const c of commentBlocks(p, text)) {
        const where = `${relative(ROOT, p)}:${c.line}`;
        for (const m of c.text.matchAll(/\bdecisions(?:\.md)?[,:;]?\s*(?:see\s+|under\s+)?((?:"[^"]*"\s*(?:,|and|or)?\s*)+)/g)) {
          for (const q of m[1].matchAll(/"([^"]*)"/g)) if (!sections.has(q[1])) bad.push(`${where}: "${q[1]}" is no section of docs/decisions.md`);
        }
        for (const m of c.text.matchAll(/\bdecisions(?:\.md)?,\s+([A-Za-z][\w -]*)\)/g)) bad.push(`${where}: decisions, ${m[1]}: name a section of docs/decisions.md in quotes`);
      }
    }
    if (bad.length > 0) bad.push(`the sections: ${[...sections].map((s) => `"${s}"`).join(', ')}`);
    expect(bad).toEqual([]);
  });

  it('repeated code only falls: `duplicates` over src and test counts no more pairs than test/tidy/duplicates.json (npm run duplicates)', () => {
    if (!Bun.which('duplicates')) {
      // The tool is this machine's (CI runs here); elsewhere nothing measures, and the test says so.
      console.warn('duplicates is not on PATH: the duplicate-code ratchet (test/tidy/duplicates.json) was not checked');
      return;
    }
    const now: DuplicateCounts = countDuplicates(ROOT);
    const bad: string[] = [];
    for (const dir of ['src', 'test'] as const) {
      if (now[dir] > DUPLICATES[dir]) bad.push(`${dir}: ${now[dir]} pairs of repeated code, up from ${DUPLICATES[dir]}: \`duplicates --change\` shows what this change repeats`);
      else if (now[dir] < DUPLICATES[dir]) console.warn(`${dir}: ${now[dir]} pairs of repeated code, down from ${DUPLICATES[dir]}: \`npm run duplicates\` lowers test/tidy/duplicates.json`);
    }
    expect(bad).toEqual([]);
  }, 300_000);
});
