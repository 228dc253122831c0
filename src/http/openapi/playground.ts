// The Playground's API reference, with the web application's endpoints (`/api/auth/`) whose login
// sets the session cookie the Playground needs: the registries, tags, named enum fields and the
// examples recorded from real responses (examples/playground.json, written by
// test/support/capture-openapi-examples.ts).

import { OPTIMIZE_ENDPOINTS } from '../playground/optimize-schemas.ts';
import { PLAYGROUND_ENDPOINTS } from '../playground/schemas.ts';
import { WEB_ENDPOINTS } from '../web/schemas.ts';
import { familyReference } from './family.ts';
import type { FieldEnum } from './schema-json.ts';

const PLAYGROUND_FIELD_ENUMS: readonly FieldEnum[] = [
  { property: 'difficulty', enum: 'TemplateDifficulty' },
  { property: 'type', sibling: 'label', enum: 'TemplateParamType' },
];

function playgroundTag(path: string): string {
  if (path.startsWith('/templates')) return 'Templates';
  if (path.startsWith('/strategies')) return 'Strategies';
  if (path.startsWith('/optimiz')) return 'Optimisations';
  return 'Runs';
}

const DESCRIPTION = `The strategy Playground: templates and your own Python strategies backtested over the replay history and engine, one execution at a time, followed by polling or Server-Sent Events. With it, the web application's endpoints (\`/api/auth/\`): the password login that sets the session cookie, the signed-in user, and the API-key settings.

Authentication: the \`rd_session\` cookie set by \`POST /api/auth/login\`; \`GET /api/playground/templates\` is public, everything else in the Playground needs the Pro plan. State-changing requests must not be cross-site and a POST must say \`Content-Type: application/json\` (CSRF guard, HTTP 403).

Every JSON answer carries the envelope (\`success\`, \`errorCode\`, \`errorMessage\`; see the Envelope model). Business errors are HTTP 200 with \`success\` false; each endpoint lists its rows.`;

export const playgroundReference = familyReference('playground', {
  title: 'ReplayDesk Playground and web login API',
  description: DESCRIPTION,
  base: '/api',
  sections: [
    { prefix: '/api/auth', endpoints: WEB_ENDPOINTS, tagOf: (path) => (path.startsWith('/api-key') ? 'API key' : 'Web login') },
    { prefix: '/api/playground', endpoints: [...PLAYGROUND_ENDPOINTS, ...OPTIMIZE_ENDPOINTS], tagOf: playgroundTag },
  ],
  tags: {
    'Web login': 'The password login that sets the `rd_session` cookie, the signed-in user, logout.',
    'API key': 'The API key bots log in with: whether one exists, a new one (shown once; the old key and its tokens are revoked).',
    Templates: 'The strategy templates (public).',
    Runs: 'Backtest executions: start, stop, pace, state, events.',
    Strategies: 'Saved strategies and their runs.',
    Optimisations: 'Searches over a strategy\'s params, each combination a run; walk-forward analysis.',
  },
  fieldEnums: PLAYGROUND_FIELD_ENUMS,
});
