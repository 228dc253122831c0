// The version the API reference documents show: the package's.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export const PRODUCT_VERSION: string = JSON.parse(readFileSync(join(import.meta.dir, '..', '..', '..', 'package.json'), 'utf8')).version;
