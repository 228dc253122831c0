// The duplicate-code ratchet's measure: `duplicates` (a tool of this machine, on its PATH) over src/
// and test/, as the count of pairs of places sharing six or more lines (its first line). The counts
// kept in test/tidy/duplicates.json may only fall: test/tidy.test.ts fails when one rose, and
// `npm run duplicates` prints them and lowers the file when they fell (it never raises it).

import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface DuplicateCounts {
  src: number;
  test: number;
}

const FILE = join(import.meta.dir, 'duplicates.json');
const ROOT = join(import.meta.dir, '..', '..');

interface Kept extends DuplicateCounts {
  /** The command, `DIR` standing for src or test, run from the repository's root. */
  command: string;
}

function kept(): Kept {
  return JSON.parse(readFileSync(FILE, 'utf8')) as Kept;
}

/** Pairs of repeated places in one folder; throws when the tool did not read the whole folder. */
function countIn(root: string, command: string, dir: string): number {
  const argv = command.split(' ').map((w) => (w === 'DIR' ? dir : w));
  const r = Bun.spawnSync(argv, { cwd: root, stdout: 'pipe', stderr: 'pipe' });
  const lines = r.stdout.toString().split('\n');
  const incomplete = lines.find((l) => l.startsWith('incomplete:'));
  if (incomplete !== undefined) throw new Error(`${argv.join(' ')}: ${incomplete}`);
  const pairs = /^(\d+) pairs? of places/.exec(lines[0]);
  if (pairs) return Number(pairs[1]);
  if (lines[0].startsWith('no duplicates')) return 0;
  throw new Error(`${argv.join(' ')} answered ${JSON.stringify(lines[0])} (exit ${r.exitCode}; ${r.stderr.toString().trim()})`);
}

/** The counts of the tree at `root` now, by the command the file keeps. */
export function countDuplicates(root: string = ROOT): DuplicateCounts {
  const { command } = kept();
  return { src: countIn(root, command, 'src'), test: countIn(root, command, 'test') };
}

if (import.meta.main) {
  const file = kept();
  const now = countDuplicates();
  let lowered = false;
  let rose = false;
  for (const dir of ['src', 'test'] as const) {
    console.log(`${dir}: ${now[dir]} pairs (kept: ${file[dir]})`);
    if (now[dir] < file[dir]) {
      file[dir] = now[dir];
      lowered = true;
    } else if (now[dir] > file[dir]) rose = true;
  }
  if (lowered) {
    writeFileSync(FILE, `${JSON.stringify(file, null, 2)}\n`);
    console.log('test/tidy/duplicates.json lowered: commit it');
  }
  if (rose) {
    console.log('a count rose: `duplicates --change` lists what the change repeats; the file is never raised');
    process.exit(1);
  }
}
