// Tiny argv parser for the admin CLI: positional words, then `--flag value` or boolean `--flag`.

export interface ParsedArgs {
  words: string[];
  flags: Map<string, string | true>;
}

/** Bad input: printed as {"error": message, ...details} with exit code 1. */
export class UsageError extends Error {
  constructor(
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

export function parseArgs(argv: string[], booleanFlags: ReadonlySet<string>): ParsedArgs {
  const words: string[] = [];
  const flags = new Map<string, string | true>();
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (!a.startsWith('--')) {
      words.push(a);
      continue;
    }
    const eq = a.indexOf('=');
    const name = eq > 0 ? a.slice(2, eq) : a.slice(2);
    if (eq > 0) flags.set(name, a.slice(eq + 1));
    else if (booleanFlags.has(name)) flags.set(name, true);
    else {
      const v = argv[i + 1];
      if (v === undefined || v.startsWith('--')) throw new UsageError(`--${name} needs a value`);
      flags.set(name, v);
      i++;
    }
  }
  return { words, flags };
}

export function str(a: ParsedArgs, name: string, required: true): string;
export function str(a: ParsedArgs, name: string, required?: false): string | undefined;
export function str(a: ParsedArgs, name: string, required = false): string | undefined {
  const v = a.flags.get(name);
  if (v === undefined) {
    if (required) throw new UsageError(`--${name} is required`);
    return undefined;
  }
  if (v === true) throw new UsageError(`--${name} needs a value`);
  return v;
}

export function boolFlag(a: ParsedArgs, name: string): boolean | undefined {
  const v = a.flags.get(name);
  if (v === undefined) return undefined;
  if (v === true || v === 'true') return true;
  if (v === 'false') return false;
  throw new UsageError(`--${name} must be true or false`);
}
