// What every family's API reference sets the same way: the product version, tags written as a
// table (name → description, in the order the page lists them) and the examples recorded for the
// family (examples/<family>.json, written by test/support/capture-openapi-examples.ts).

import type { FamilyReference } from './document.ts';
import { type ExampleFamily, recordedExamples } from './examples/index.ts';
import { PRODUCT_VERSION } from './version.ts';

export interface FamilyTable extends Omit<FamilyReference, 'version' | 'tags' | 'examples'> {
  /** Tag name → description. */
  readonly tags: Readonly<Record<string, string>>;
}

export function familyReference(family: ExampleFamily, t: FamilyTable): FamilyReference {
  return {
    title: t.title,
    version: PRODUCT_VERSION,
    description: t.description,
    base: t.base,
    sections: t.sections,
    tags: Object.entries(t.tags).map(([name, description]) => ({ name, description })),
    fieldEnums: t.fieldEnums,
    examples: () => recordedExamples(family),
  };
}
