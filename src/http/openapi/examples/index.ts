// The examples recorded from real responses by test/support/capture-openapi-examples.ts, one file
// per family.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ExampleBook } from '../document.ts';

export type ExampleFamily = 'sim' | 'legacy' | 'playground';

export function recordedExamples(family: ExampleFamily): ExampleBook {
  return JSON.parse(readFileSync(join(import.meta.dir, `${family}.json`), 'utf8')) as ExampleBook;
}
