// Where a failed run's traceback points in the user's file. The server limits tracebacks to the
// user's file, `strategy.py` (docs/playground.md, Errors); the innermost frame is the last one.

const FRAME = /File "strategy\.py", line (\d+)/g;

/** The 1-based line of the innermost frame in strategy.py, or null when the error names none. */
export function errorLine(traceback: string | null | undefined): number | null {
  if (!traceback) return null;
  let line: number | null = null;
  for (const m of traceback.matchAll(FRAME)) line = Number(m[1]);
  return line;
}

/** The last line of a traceback: `ZeroDivisionError: division by zero`. */
export function errorSummary(traceback: string): string {
  const lines = traceback.trimEnd().split('\n');
  return lines[lines.length - 1]!.trim();
}
