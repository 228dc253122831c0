// The current family's API reference: its endpoint registry, tags, named enum fields and the
// examples recorded from real responses (examples/sim.json, written by
// test/support/capture-openapi-examples.ts).

import { SIM_ENDPOINTS } from '../sim/schemas.ts';
import type { FieldEnum } from './schema-json.ts';
import { familyReference } from './family.ts';

/** Numeric fields that are enums without a title in the schemas. */
export const SIM_FIELD_ENUMS: readonly FieldEnum[] = [
  { property: 'unit', sibling: 'unitNumber', enum: 'BarUnit' },
  { property: 'side', enum: 'OrderSide' },
  { property: 'type', sibling: 'side', enum: 'OrderType' },
  { property: 'status', sibling: 'side', enum: 'OrderStatus' },
  { property: 'type', sibling: 'averagePrice', enum: 'PositionType' },
];

const DESCRIPTION = `The current simulator family, compatible with the common futures-gateway REST schema: bots written for it run with only a base-URL change.

Every call is a POST with a JSON body except \`GET Status/ping\`. Every JSON answer carries the envelope (\`success\`, \`errorCode\`, \`errorMessage\`; see the Envelope model). Business errors are HTTP 200 with \`success\` false and a per-endpoint \`errorCode\`: each endpoint lists its rows. Transport errors use their HTTP status: 400 malformed JSON, 401 no valid token, 429 and 503 with \`Retry-After\`.

Authentication: \`POST Auth/loginKey\` with the account email and the API key from the web settings returns a token (24 hours) to send as \`Authorization: Bearer\`. The web console calls the same endpoints with its session cookie instead.

Every path is also served under \`/api/sim/api/\` (for clients that append \`/api/Group/op\` to a bare base URL); it is listed once here.`;

export const simReference = familyReference('sim', {
  title: 'ReplayDesk simulator API (current family)',
  description: DESCRIPTION,
  base: '/api/sim',
  sections: [{ prefix: '/api/sim', endpoints: SIM_ENDPOINTS }],
  tags: {
    Auth: 'API-key login, token rotation and logout.',
    Status: 'Liveness.',
    Account: 'Accounts of the user: replay session accounts and challenge accounts.',
    Contract: 'Instruments as gateway contracts (`CON.F.US.{symbol}.{monthYear}`).',
    History: 'Historical bars.',
    Replay: 'Replay sessions: start, step, jump, play, pause, end.',
    Order: 'Orders in a live replay session.',
    Position: 'The open position of a live replay session.',
    Trade: 'Fills of the current replay session.',
    Payout: 'Simulated withdrawals from challenge accounts in the performance phase.',
  },
  fieldEnums: SIM_FIELD_ENUMS,
});
