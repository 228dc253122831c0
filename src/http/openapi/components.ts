// What the API reference documents share: the envelope, the enums with their names, the security
// schemes and the Retry-After header. Values and names are the spec's (Resources and their fields →
// Order, Position; History/retrieveBars; Earlier family; Playground resources).

import { SESSION_COOKIE } from '../shared/cookie.ts';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

/** One named value of an enum: the wire value, its name, what it means (when the name does not say it). */
type EnumValue = readonly [value: number | string, name: string, meaning?: string];

export interface EnumDoc {
  readonly title: string;
  readonly type: 'integer' | 'string';
  readonly values: readonly EnumValue[];
}

const integers = (title: string, values: readonly EnumValue[]): EnumDoc => ({ title, type: 'integer', values });
const strings = (title: string, values: readonly EnumValue[]): EnumDoc => ({ title, type: 'string', values });

export const ENUMS = {
  OrderType: integers('Order type', [
    [1, 'Limit', 'needs limitPrice'],
    [2, 'Market'],
    [3, 'StopLimit', 'needs stopPrice and limitPrice'],
    [4, 'Stop', 'needs stopPrice'],
  ]),
  OrderSide: integers('Order side', [[0, 'Buy'], [1, 'Sell']]),
  OrderStatus: integers('Order status', [
    [1, 'Partial', 'working (Order/searchOpen reports every working order with 1)'],
    [2, 'Filled'],
    [3, 'Canceled'],
    [6, 'Pending', 'working, not filled'],
  ]),
  PositionType: integers('Position type', [[1, 'Long'], [2, 'Short']]),
  BarUnit: integers('Bar unit (History/retrieveBars; week and month are not supported)', [[1, 'Second'], [2, 'Minute'], [3, 'Hour'], [4, 'Day']]),
  LegacyTimeframe: strings('Replay timeframe of the earlier family', [
    ['1s', 'OneSecond'], ['1m', 'OneMinute'], ['5m', 'FiveMinutes'], ['15m', 'FifteenMinutes'],
    ['30m', 'ThirtyMinutes'], ['1h', 'OneHour'], ['4h', 'FourHours'], ['1D', 'OneDay'],
  ]),
  RunStatus: strings('Playground run status', [
    ['running', 'Running', 'not finished; completedAt is null'],
    ['completed', 'Completed'],
    ['failed', 'Failed'],
    ['stopped', 'Stopped', 'stopped by the user'],
    ['timeout', 'Timeout', 'exceeded the execution time limit'],
  ]),
  TemplateDifficulty: strings('Template difficulty', [['beginner', 'Beginner'], ['intermediate', 'Intermediate'], ['advanced', 'Advanced']]),
  TemplateParamType: strings('Template parameter type', [['number', 'Number'], ['string', 'String'], ['boolean', 'Boolean']]),
} as const satisfies Record<string, EnumDoc>;

export type EnumName = keyof typeof ENUMS;

/**
 * An enum as a JSON Schema: the values, their names (`x-enum-varnames`, read by client generators),
 * what each means (`x-enum-descriptions`) and the same as a table in the description for readers.
 */
export function enumSchema(e: EnumDoc): JsonObject {
  const lines = e.values.map(([v, name, meaning = '']) => `| \`${v}\` | ${name} | ${meaning} |`);
  return {
    title: e.title,
    type: e.type,
    enum: e.values.map(([v]) => v),
    'x-enum-varnames': e.values.map(([, name]) => name),
    'x-enum-descriptions': e.values.map(([, name, meaning]) => (meaning ? `${name}: ${meaning}` : name)),
    description: [`${e.title}.`, '', '| Value | Name | Meaning |', '|---|---|---|', ...lines].join('\n'),
  };
}

/** Every JSON response carries these three fields (spec, General rules 3). */
export const ENVELOPE: JsonObject = {
  title: 'Envelope',
  type: 'object',
  description:
    'The envelope every JSON response carries. `success` false comes with a non-zero `errorCode` whose meaning is per endpoint (see each endpoint\'s error table).',
  properties: {
    success: { type: 'boolean' },
    errorCode: { type: 'integer', description: '0 on success; per-endpoint code otherwise (the HTTP status for 400, 401, 403, 429, 503).' },
    errorMessage: { type: ['string', 'null'], description: 'null on success.' },
  },
  required: ['success', 'errorCode', 'errorMessage'],
};

/** A failure: the envelope with `success` false (some endpoints add fields, listed with the endpoint). */
export const ERROR_ENVELOPE: JsonObject = {
  title: 'Error envelope',
  type: 'object',
  description: 'A failure: the envelope with `success` false, a non-zero `errorCode` and its message.',
  properties: {
    success: { const: false },
    errorCode: { type: 'integer', not: { const: 0 } },
    errorMessage: { type: 'string' },
  },
  required: ['success', 'errorCode', 'errorMessage'],
};

export const RETRY_AFTER_HEADER: JsonObject = {
  description: 'Seconds to wait before retrying.',
  required: true,
  schema: { type: 'integer', minimum: 0 },
};

export const SECURITY_SCHEMES = {
  bearerAuth: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description: 'The token from Auth/loginKey (valid 24 hours), sent as `Authorization: Bearer <token>`.',
  },
  sessionCookie: {
    type: 'apiKey',
    in: 'cookie',
    name: SESSION_COOKIE,
    description:
      'The web session cookie set by `POST /api/auth/login` (a JWT). State-changing requests must not be cross-site (an `Origin` header must name this host, `Sec-Fetch-Site` must not be `cross-site`) and a POST must say `Content-Type: application/json`, else HTTP 403 `Cross-site request refused`.',
  },
} as const satisfies Record<string, JsonObject>;

export type SecuritySchemeName = keyof typeof SECURITY_SCHEMES;
