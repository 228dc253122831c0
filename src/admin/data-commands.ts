// `data import --symbol S --format F [--tz ZONE] FILE...` and `data list`.
// Progress goes to stderr so that stdout stays one JSON object.

import { IMPORT_FORMATS, type ImportFormat } from '../data/import/types.ts';
import { INSTRUMENTS } from '../domain/instrument.ts';
import type { ImportFileError } from '../service/market-data.ts';
import type { Services } from '../service/services.ts';
import { str, UsageError, type ParsedArgs } from './args.ts';

function describe(e: ImportFileError, file: string, symbol: string): string {
  switch (e.kind) {
    case 'instrument_not_found':
      return `unknown symbol ${JSON.stringify(symbol)}; expected one of ${INSTRUMENTS.map((i) => i.symbol).join(', ')}`;
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
      return { instruments: s.marketData.list() };
    default:
      throw new UsageError(`unknown data command ${JSON.stringify(sub ?? '')}; expected import or list`);
  }
}
