// The API reference: one OpenAPI 3.1 document per family and a Scalar page for each, served by
// @elysiajs/openapi, plus the Scalar bundle they load (served locally: no internet needed).
//
//   /api/sim/openapi           page      /api/sim/openapi/json           document
//   /api/legacy-sim/openapi    page      /api/legacy-sim/openapi/json    document
//   /api/playground/openapi    page      /api/playground/openapi/json    document (with /api/auth/*)
//
// Documents are built from the families' endpoint registries once per process, when first fetched
// (the plugin reads its `documentation` lazily, except `info`), and the plugin caches the result. The plugin only serves them: routes carry no schema
// (Elysia must not validate with them; our own validators answer with the spec's rows), so each
// plugin is limited to its family's paths and every path of the family comes from our document.

import { openapi } from '@elysiajs/openapi';
import { Elysia } from 'elysia';
import { buildDocument, type FamilyReference, type OpenApiDocument } from './document.ts';
import { scalarConfig, scalarScript } from './scalar.ts';
import { legacyReference } from './legacy.ts';
import { playgroundReference } from './playground.ts';
import { simReference } from './sim.ts';

export interface ReferenceMount {
  readonly reference: FamilyReference;
  /** The page; the document is at `${pagePath}/json`. */
  readonly pagePath: string;
  /** Route paths outside the family that the plugin must leave out of the document. */
  readonly outside: RegExp;
}

export const REFERENCE_MOUNTS: readonly ReferenceMount[] = [
  // `/api/sim/api/` serves the same endpoints again: documented once, under `/api/sim/`.
  { reference: simReference, pagePath: '/api/sim/openapi', outside: /^(?!\/api\/sim\/(?!api\/))/ },
  { reference: legacyReference, pagePath: '/api/legacy-sim/openapi', outside: /^(?!\/api\/legacy-sim\/)/ },
  // The web login sets the Playground's cookie: its endpoints are documented with the Playground.
  { reference: playgroundReference, pagePath: '/api/playground/openapi', outside: /^(?!\/api\/(playground|auth)\/)/ },
];

const built = new Map<FamilyReference, OpenApiDocument>();

/** The family's document, built on first use and kept for the life of the process. */
export function referenceDocument(reference: FamilyReference): OpenApiDocument {
  let doc = built.get(reference);
  if (!doc) {
    doc = buildDocument(reference);
    built.set(reference, doc);
  }
  return doc;
}

/**
 * The plugin's `documentation`: `info` now (the page's title), the rest built when the plugin first
 * reads it, which is on the first request for the document. Apps that never serve it (most tests)
 * never build it.
 */
function lazyDocumentation(reference: FamilyReference) {
  const doc = () => referenceDocument(reference);
  return {
    info: { title: reference.title, version: reference.version, description: reference.description },
    get tags() {
      return doc().tags;
    },
    get paths() {
      return doc().paths;
    },
    get components() {
      return doc().components;
    },
  } as never;
}

/** Mounted once by src/app.ts. */
export function apiReference() {
  const app = new Elysia({ name: 'replaydesk-api-reference' }).use(scalarScript());
  for (const m of REFERENCE_MOUNTS) {
    const specPath = `${m.pagePath}/json`;
    app.use(
      openapi({
        path: m.pagePath,
        specPath,
        documentation: lazyDocumentation(m.reference),
        exclude: { paths: [m.outside] },
        scalar: scalarConfig(specPath) as never,
      }),
    );
  }
  return app;
}
