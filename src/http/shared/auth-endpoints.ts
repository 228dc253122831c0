// Auth/loginKey and Auth/logout: the same route, fields, rules and answer in both simulator
// families; only the summary and the code table (the family's messages) differ.

import { Type as T } from '@sinclair/typebox';
import type { LoginError } from '../../service/auth.ts';
import type { CodeTable } from './code-table.ts';
import { endpoint } from './declare.ts';
import { okBody } from './endpoint.ts';

export function loginKeyEndpoint(summary: string, errors: CodeTable<LoginError>) {
  return endpoint('POST /Auth/loginKey', 'none', summary, {
    request: { userName: T.String({ description: 'Account email' }), apiKey: T.String() },
    // The throttle counts the attempt before the fields are looked at: the service answers them.
    fields: { userName: { defer: 'missing_credentials' }, apiKey: { defer: 'missing_credentials' } },
    response: okBody({ token: T.String() }),
    errors,
  });
}

export function logoutEndpoint(summary: string, errors: CodeTable<never>) {
  return endpoint('POST /Auth/logout', 'bearer-only', summary, { response: okBody({}), errors });
}
