// The earlier family's API reference: its endpoint registry, tags, named enum fields and the
// examples recorded from real responses (examples/legacy.json, written by
// test/support/capture-openapi-examples.ts).

import { LEGACY_ENDPOINTS } from '../legacy/schemas.ts';
import { familyReference } from './family.ts';
import type { FieldEnum } from './schema-json.ts';
import { SIM_FIELD_ENUMS } from './sim.ts';

/** The current family's enum fields, plus the order status Order/place answers and the replay timeframe. */
const LEGACY_FIELD_ENUMS: readonly FieldEnum[] = [
  ...SIM_FIELD_ENUMS,
  { property: 'orderStatus', enum: 'OrderStatus' },
  { property: 'timeframe', sibling: 'instrumentSymbol', enum: 'LegacyTimeframe' },
];

const DESCRIPTION = `The earlier simulator family, kept for bots written against it. Same accounts, history, engine and bearer tokens as the current family (\`/api/sim/\`); its shapes differ where listed: string order and fill IDs, \`Order/modify\` supported, \`timestamp\` for Replay/jumpTo, results at Replay/end, \`barsBack\` for History/retrieveBars.

Every call is a POST with a JSON body except \`GET Status/ping\`. Every answer carries the envelope (\`success\`, \`errorCode\`, \`errorMessage\`; see the Envelope model). Business errors are HTTP 200 with \`success\` false; each endpoint lists its rows. Transport errors use their HTTP status: 400 malformed JSON, 401 no valid token, 429 and 503 with \`Retry-After\`.

Authentication: \`POST Auth/loginKey\` with the account email and the API key returns a token to send as \`Authorization: Bearer\`.`;

export const legacyReference = familyReference('legacy', {
  title: 'ReplayDesk simulator API (earlier family)',
  description: DESCRIPTION,
  base: '/api/legacy-sim',
  sections: [{ prefix: '/api/legacy-sim', endpoints: LEGACY_ENDPOINTS }],
  tags: {
    Auth: 'API-key login, token check and logout.',
    Status: 'Liveness.',
    Account: 'Accounts of the user.',
    Contract: 'Instruments of this family (CL, EURUSD on its 0.00005 tick, …).',
    History: 'Historical bars, up to the replay time by default.',
    Replay: 'One live replay session per user: start, step, jump, play, pause, end with results.',
    Order: 'Orders in the live session; IDs are strings.',
    Position: 'Open positions of the live session.',
    Trade: 'Fills, oldest first.',
    Payout: 'Simulated payouts from funded challenge accounts.',
  },
  fieldEnums: LEGACY_FIELD_ENUMS,
});
