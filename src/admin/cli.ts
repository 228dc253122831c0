// `npm run --silent admin -- <group> <command> [--flags]`: manages an instance's data directory,
// also while the server runs (both use the same SQLite database in WAL mode, so a change is seen by
// the server's next request). Prints exactly one JSON object on stdout; on bad input prints
// {"error": "..."} and exits 1. `help`, `--help`, `-h` or no command print the usage text instead.

import { loadConfig } from '../config.ts';
import { openInstance } from '../instance.ts';
import { parseArgs, UsageError } from './args.ts';
import { challengeCommand } from './challenge-commands.ts';
import { dataCommand, migrateCommand } from './data-commands.ts';
import { userCommand } from './user-commands.ts';
import { USAGE, wantsHelp } from './usage.ts';

const BOOLEAN_FLAGS = new Set(['unverified', 'disabled', 'verified']);

async function run(argv: string[]): Promise<object> {
  // `--disabled` is a plain switch for `user create` but takes true/false for `user set`.
  const isSet = argv[0] === 'user' && argv[1] === 'set';
  const args = parseArgs(argv, isSet ? new Set() : BOOLEAN_FLAGS);
  const [group, sub] = args.words;
  // The migration reads DATA_DIR and writes the target: it opens no instance (and no DATABASE_URL).
  if (group === 'data' && sub === 'migrate') return migrateCommand(loadConfig(process.env), args);
  const s = await openInstance(loadConfig(process.env), { restoreSessions: false });
  try {
    switch (group) {
      case 'user':
        return await userCommand(s, sub, args);
      case 'data':
        return await dataCommand(s, sub, args);
      case 'challenge':
        return await challengeCommand(s, sub, args);
      default:
        throw new UsageError(`unknown command group ${JSON.stringify(group ?? '')}; expected user, challenge or data`);
    }
  } finally {
    await s.shutdown();
    s.db.close();
  }
}

const argv = process.argv.slice(2);
if (wantsHelp(argv)) {
  process.stdout.write(USAGE);
  process.exit(argv.length === 0 ? 1 : 0);
}

try {
  const out = await run(argv);
  process.stdout.write(`${JSON.stringify(out)}\n`);
} catch (e) {
  const body = e instanceof UsageError ? { error: e.message, ...e.details } : { error: `unexpected failure: ${(e as Error).message}` };
  process.stdout.write(`${JSON.stringify(body)}\n`);
  process.exit(1);
}
