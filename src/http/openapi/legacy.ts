// The earlier family's API reference: its endpoint registry, tags, named enum fields and the
// examples recorded from real responses (examples/legacy.json, written by
// test/support/capture-openapi-examples.ts).

import { LEGACY_ENDPOINTS } from '../legacy/schemas.ts';
import type { FamilyReference } from './document.ts';
import { recordedExamples } from './examples/index.ts';
import type { FieldEnum } from './schema-json.ts';
import { SIM_FIELD_ENUMS } from './sim.ts';
import { PRODUCT_VERSION } from './version.ts';

/** The current family's enum fields, plus the order status Order/place answers and the replay timeframe. */
const LEGACY_FIELD_ENUMS: readonly FieldEnum[] = [
  ...SIM_FIELD_ENUMS,
  { property: 'orderStatus', enum: 'OrderStatus' },
  { property: 'timeframe', sibling: 'instrumentSymbol', enum: 'LegacyTimeframe' },
];

const DESCRIPTION = `The earlier simulator family, kept for bots written against it. Same accounts, history, engine and bearer tokens as the current family (\`/api/sim/\`); its shapes differ where listed: string order and fill IDs, \`Order/modify\` supported, \`timestamp\` for Replay/jumpTo, results at Replay/end, \`barsBack\` for History/retrieveBars.

Every call is a POST with a JSON body except \`GET Status/ping\`. Every answer carries the envelope (\`success\`, \`errorCode\`, \`errorMessage\`; see the Envelope model). Business errors are HTTP 200 with \`success\` false; each endpoint lists its rows. Transport errors use their HTTP status: 400 malformed JSON, 401 no valid token, 429 and 503 with \`Retry-After\`.

Authentication: \`POST Auth/loginKey\` with the account email and the API key returns a token to send as \`Authorization: Bearer\`.`;

export const legacyReference: FamilyReference = {
  title: 'ReplayDesk simulator API (earlier family)',
  version: PRODUCT_VERSION,
  description: DESCRIPTION,
  base: '/api/legacy-sim',
  sections: [{ prefix: '/api/legacy-sim', endpoints: LEGACY_ENDPOINTS }],
  tags: [
    { name: 'Auth', description: 'API-key login, token check and logout.' },
    { name: 'Status', description: 'Liveness.' },
    { name: 'Account', description: 'Accounts of the user.' },
    { name: 'Contract', description: 'Instruments of this family (CL, EURUSD on its 0.00005 tick, …).' },
    { name: 'History', description: 'Historical bars, up to the replay time by default.' },
    { name: 'Replay', description: 'One live replay session per user: start, step, jump, play, pause, end with results.' },
    { name: 'Order', description: 'Orders in the live session; IDs are strings.' },
    { name: 'Position', description: 'Open positions of the live session.' },
    { name: 'Trade', description: 'Fills, oldest first.' },
    { name: 'Payout', description: 'Simulated payouts from funded challenge accounts.' },
  ],
  fieldEnums: LEGACY_FIELD_ENUMS,
  examples: () => recordedExamples('legacy'),
};
