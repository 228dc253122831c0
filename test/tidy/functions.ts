// Function lengths for the tidy ratchet, measured with the TypeScript compiler's parser: every
// function-like node (declarations, methods, constructors, accessors, function expressions and arrows)
// with its name and the number of lines it spans, from its first token to its closing brace.

import ts from 'typescript';

export interface FunctionLength {
  /** `path:name`, unique within the repository (a repeated name gets `#2`, `#3` in source order). */
  readonly key: string;
  readonly lines: number;
}

const FUNCTION_LIKE = new Set([
  ts.SyntaxKind.FunctionDeclaration,
  ts.SyntaxKind.FunctionExpression,
  ts.SyntaxKind.ArrowFunction,
  ts.SyntaxKind.MethodDeclaration,
  ts.SyntaxKind.Constructor,
  ts.SyntaxKind.GetAccessor,
  ts.SyntaxKind.SetAccessor,
]);

/** The name a reader would look for: the declared name, the variable or property it is assigned to, or the call it is passed to. */
function nameOf(node: ts.Node, sf: ts.SourceFile): string {
  const named = node as ts.Node & { name?: ts.Node };
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  if (named.name) return named.name.getText(sf);
  const p = node.parent;
  if (ts.isVariableDeclaration(p) || ts.isPropertyAssignment(p) || ts.isPropertyDeclaration(p)) return p.name.getText(sf);
  if (ts.isCallExpression(p)) {
    const callee = p.expression.getText(sf).replace(/\s+/g, '');
    const first = p.arguments[0];
    const label = first && ts.isStringLiteralLike(first) ? `'${first.text}'` : '';
    return `${callee}(${label}) callback`;
  }
  return '(anonymous)';
}

/** The names of the functions around a node, outermost first. */
function scope(node: ts.Node, sf: ts.SourceFile): string[] {
  const names: string[] = [];
  for (let p = node.parent; p; p = p.parent) {
    if (FUNCTION_LIKE.has(p.kind)) names.unshift(nameOf(p, sf));
    else if (ts.isClassDeclaration(p) && p.name) names.unshift(p.name.text);
  }
  return names;
}

export function functionLengths(file: string, text: string): FunctionLength[] {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, file.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const out: FunctionLength[] = [];
  const seen = new Map<string, number>();
  const visit = (node: ts.Node) => {
    if (FUNCTION_LIKE.has(node.kind) && (node as ts.FunctionLikeDeclaration).body) {
      const first = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line;
      const last = sf.getLineAndCharacterOfPosition(node.getEnd()).line;
      const name = [...scope(node, sf), nameOf(node, sf)].join('.');
      const n = (seen.get(name) ?? 0) + 1;
      seen.set(name, n);
      out.push({ key: `${file}:${n === 1 ? name : `${name}#${n}`}`, lines: last - first + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return out;
}
