// `data import --symbol S --format F [--tz ZONE] FILE...`, `data list` and
// `data migrate --to postgres://…`. Progress goes to stderr so that stdout stays one JSON object.

import { existsSync, readFileSync } from 'node:fs';
import type { Config } from '../config.ts';
import { IMPORT_FORMATS, type ImportFormat } from '../data/import/types.ts';
import { CATALOGUE } from '../domain/instrument.ts';
import { dbPathOf, jwtSecretPathOf } from '../instance.ts';
import { migrateToPostgres } from '../service/data-migration.ts';
import type { ImportFileError } from '../service/market-data.ts';
import type { Services } from '../service/services.ts';
import { str, UsageError, type ParsedArgs } from './args.ts';

function describe(e: ImportFileError, file: string, symbol: string): string {
  switch (e.kind) {
    case 'instrument_not_found':
      return `unknown symbol ${JSON.stringify(symbol)}; expected one of ${CATALOGUE.map((i) => i.symbol).join(', ')}`;
    case 'import_running':
      return 'another import of this instrument is running';
    case 'file_unreadable':
      return `${file}: cannot read file: ${e.message}`;
    case 'invalid_file':
      return e.error.line > 0 ? `${file} line ${e.error.line}: ${e.error.message}` : `${file}: ${e.error.message}`;
  }
}

export async function dataCommand(s: Services, sub: string | undefined, a: ParsedArgs): Promise<object> {
  switch (sub) {
    case 'import': {
      const symbol = str(a, 'symbol', true);
      const format = str(a, 'format', true);
      if (!IMPORT_FORMATS.includes(format as ImportFormat)) {
        throw new UsageError(`--format must be one of ${IMPORT_FORMATS.join(', ')}`);
      }
      const files = a.words.slice(2);
      if (files.length === 0) throw new UsageError('name at least one FILE to import');
      const results = [];
      for (const path of files) {
        const r = await s.marketData.importFile(symbol, format as ImportFormat, str(a, 'tz'), path, (done, total) =>
          process.stderr.write(`${path}: ${done}/${total} lines\n`),
        );
        if (!r.ok) throw new UsageError(describe(r.error, path, symbol), { files: results });
        results.push(r.value);
      }
      return { symbol: symbol.toUpperCase(), files: results };
    }
    case 'list':
      return { instruments: await s.marketData.list() };
    default:
      throw new UsageError(`unknown data command ${JSON.stringify(sub ?? '')}; expected import, list or migrate`);
  }
}

/** What the summary says of market data: where it lives from now on. */
const MARKET_DATA_NOTE =
  'imported bars, their rollups, the imported files and the data versions were copied into PostgreSQL; ' +
  'every node copies them into its own DATA_DIR when it starts and after each import, so a new node needs only DATABASE_URL';

/**
 * `data migrate --to postgres://…`: copies this DATA_DIR's store into an empty PostgreSQL database.
 * Runs without opening the instance (no services, no session restore): it only reads DATA_DIR.
 */
export async function migrateCommand(config: Config, a: ParsedArgs): Promise<object> {
  const to = str(a, 'to', true);
  if (!/^postgres(ql)?:\/\//.test(to)) throw new UsageError('--to must be a postgres:// URL');
  const dbPath = dbPathOf(config);
  if (!existsSync(dbPath)) throw new UsageError(`no database in DATA_DIR ${config.dataDir} (expected ${dbPath})`);
  const secretPath = jwtSecretPathOf(config);
  const secret = existsSync(secretPath) ? new Uint8Array(readFileSync(secretPath)) : null;
  const r = await migrateToPostgres(dbPath, secret, to);
  if (!r.ok) throw new UsageError(r.error.message, { kind: r.error.kind });
  return { from: dbPath, to: describeUrl(to), ...r.value, marketData: MARKET_DATA_NOTE };
}

/** The target without its credentials: host, port and database. */
function describeUrl(url: string): string {
  const u = new URL(url);
  return `postgres://${u.host}${u.pathname}`;
}
