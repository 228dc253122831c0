// What `admin help` (or `--help`, `-h`, or no command) prints: every command with its flags, as
// plain text, since a person reads it; every other answer of the CLI stays one JSON object. The
// plan sizes and import formats are the commands' own lists.

import { IMPORT_FORMATS } from '../data/import/types.ts';
import { SIZES } from './challenge-commands.ts';

export const USAGE = `ReplayDesk admin: npm run --silent admin -- <group> <command> [--flags]
Works on DATA_DIR (default ./data), also while the server runs. Prints one JSON object;
on bad input {"error": "..."} and exit code 1.

user create      --email E [--plan pro|free] [--unverified] [--disabled] [--password P]
user rotate-key  --email E          new API key; the old key and its tokens stop working
user set-profile --email E --profile live|spec|default   the API profile of the user's current key
                                    (default: the server's API_PROFILE); its tokens follow at once
user set-password --email E --password P   web login; ends the user's web sessions
user set         --email E [--plan pro|free] [--disabled true|false] [--verified true|false]
user list

challenge create --email E --plan ${SIZES.join('|')} [--phase evaluation|performance]
                 [--policy standard|consistency] [--daily-loss hard|soft]
challenge show   --account ID
challenge end    --account ID
challenge plans

data import      --symbol S --format F [--tz ZONE] FILE...   formats: ${IMPORT_FORMATS.join(', ')}
data list

help             this text (also --help, -h)
`;

/** Whether the arguments ask for the usage text. */
export function wantsHelp(argv: readonly string[]): boolean {
  return argv.length === 0 || argv[0] === 'help' || argv.includes('--help') || argv.includes('-h');
}
