// The response contract: every response the suite produces through `route` is checked against its
// endpoint's schema (test/support/response-contract.ts turns it on). These tests show the check
// catches what it must (a renamed field, an added field, a changed message, an unlisted status),
// that a handler answering off-schema fails loudly, and that every route of the converted families
// is declared, so none escapes the check.

import { afterEach, describe, expect, it } from 'bun:test';
import { Type as T } from '@sinclair/typebox';
import { Elysia } from 'elysia';
import { defineEndpoint, type EndpointInfo, okBody, route } from '../../../src/http/shared/endpoint.ts';
import { contractError, responseContract } from '../../../src/http/shared/response-contract.ts';
import * as sim from '../../../src/http/sim/schemas.ts';
import { SIM_ENDPOINTS } from '../../../src/http/sim/schemas.ts';
import { WEB_ENDPOINTS } from '../../../src/http/web/schemas.ts';
import { LEGACY_ENDPOINTS } from '../../../src/http/legacy/schemas.ts';
import { OPTIMIZE_ENDPOINTS } from '../../../src/http/playground/optimize-schemas.ts';
import { PLAYGROUND_ENDPOINTS } from '../../../src/http/playground/schemas.ts';
import { makeApp } from '../../support/app.ts';

const ACCOUNT = { id: 7, name: 'REPLAY-NQ-1m-7', balance: 50000, canTrade: true, isVisible: true, simulated: true };
const OK = { success: true, errorCode: 0, errorMessage: null };

describe('the contract check', () => {
  it('is on for the whole suite', () => {
    expect(responseContract.enabled).toBe(true);
  });

  it('accepts a body exactly as the schema describes it', () => {
    expect(contractError(sim.accountSearch, 200, { accounts: [ACCOUNT], ...OK })).toBeNull();
  });

  it('catches a renamed field', () => {
    const { simulated, ...rest } = ACCOUNT;
    const e = contractError(sim.accountSearch, 200, { accounts: [{ ...rest, isSimulated: simulated }], ...OK });
    expect(e).toContain('/accounts/0/simulated');
  });

  it('catches an added field, in a nested object and in the envelope', () => {
    expect(contractError(sim.accountSearch, 200, { accounts: [{ ...ACCOUNT, currency: 'USD' }], ...OK })).toContain('/accounts/0/currency');
    expect(contractError(sim.orderPlace, 200, { orderId: 3, filled: true, ...OK })).toContain('/filled');
  });

  it('catches a changed type and a missing envelope field', () => {
    expect(contractError(sim.orderPlace, 200, { orderId: '3', ...OK })).toContain('/orderId');
    expect(contractError(sim.orderPlace, 200, { orderId: 3, success: true, errorCode: 0 })).toContain('/errorMessage');
  });

  it('checks error rows against the code table: code, fixed message, extra fields', () => {
    const row = { success: false, errorCode: 7, errorMessage: 'Invalid order size' };
    expect(contractError(sim.orderPlace, 200, row)).toBeNull();
    expect(contractError(sim.orderPlace, 200, { ...row, errorMessage: 'Bad size' })).not.toBeNull();
    expect(contractError(sim.orderPlace, 200, { ...row, errorCode: 8 })).not.toBeNull();
    // Auth/validate's failures carry newToken: null; without it they break the contract.
    expect(contractError(sim.validate, 200, { newToken: null, success: false, errorCode: 1, errorMessage: 'Invalid session' })).toBeNull();
    expect(contractError(sim.validate, 200, { success: false, errorCode: 1, errorMessage: 'Invalid session' })).toContain('newToken');
  });

  it('knows which statuses an endpoint answers with', () => {
    const tooMany = { success: false, errorCode: 429, errorMessage: 'Too many requests' };
    expect(contractError(sim.loginKey, 429, tooMany)).toBeNull();
    expect(contractError(sim.accountSearch, 429, tooMany)).toBe('HTTP 429 is not an answer of this endpoint');
    expect(contractError(sim.loginKey, 401, { success: false, errorCode: 401, errorMessage: 'Unauthorized' })).toBe(
      'HTTP 401 is not an answer of this endpoint',
    );
    expect(contractError(sim.accountSearch, 401, { success: false, errorCode: 401, errorMessage: 'Unauthorized' })).toBeNull();
    expect(contractError(sim.ping, 200, 'pong')).toBeNull();
    expect(contractError(sim.orderModify, 200, { ...OK })).not.toBeNull(); // it never succeeds
  });
});

describe('a handler answering off-schema', () => {
  afterEach(() => {
    // The violations below are this test's purpose: keep them from failing it in the preload's hook.
    responseContract.violations.length = 0;
  });

  it('fails loudly: HTTP 500, and the violation names the endpoint, the path and the first schema error', async () => {
    const t = await makeApp();
    const probe = defineEndpoint({
      method: 'POST',
      path: '/Probe/echo',
      auth: 'none',
      summary: 'test',
      request: {},
      fields: {},
      response: okBody({ value: T.Integer() }),
      errors: {},
    });
    const app = new Elysia({ prefix: '/probe' });
    route(app, t.s, probe, () => probe.ok({ value: 1, extra: 2 } as { value: number }));
    const res = await app.handle(new Request('http://localhost/probe/Probe/echo', { method: 'POST', body: '{}' }));
    expect(res.status).toBe(500);
    expect(responseContract.violations).toHaveLength(1);
    const v = responseContract.violations[0];
    expect(v).toContain('POST /Probe/echo (/probe/Probe/echo) answered HTTP 200');
    expect(v).toContain('/extra');
  });
});

describe('every route of the current family and the web login is declared', () => {
  const declared = (prefix: string, eps: readonly EndpointInfo[]) => eps.map((e) => `${e.method} ${prefix}${e.path}`).sort();

  it('the app serves exactly the declared endpoints under every API prefix, so the contract sees every answer', async () => {
    const t = await makeApp();
    const served = (prefix: string) =>
      t.app.routes
        .filter((r) => r.path.startsWith(`${prefix}/`) && (prefix !== '/api/sim' || !r.path.startsWith('/api/sim/api/')))
        // The API reference (document and page) is served beside the family, not one of its endpoints.
        .filter((r) => !r.path.startsWith(`${prefix}/openapi`))
        .map((r) => `${r.method} ${r.path}`)
        .sort();
    expect(served('/api/sim')).toEqual(declared('/api/sim', SIM_ENDPOINTS));
    expect(served('/api/sim/api')).toEqual(declared('/api/sim/api', SIM_ENDPOINTS));
    expect(served('/api/auth')).toEqual(declared('/api/auth', WEB_ENDPOINTS));
    expect(served('/api/legacy-sim')).toEqual(declared('/api/legacy-sim', LEGACY_ENDPOINTS));
    expect(served('/api/playground')).toEqual(declared('/api/playground', [...PLAYGROUND_ENDPOINTS, ...OPTIMIZE_ENDPOINTS]));
    // Nothing else answers under /api/ but the API references and their one shared script.
    const known = ['/api/sim/', '/api/auth/', '/api/legacy-sim/', '/api/playground/'];
    const others = t.app.routes.filter((r) => r.path.startsWith('/api/') && !known.some((k) => r.path.startsWith(k)));
    expect(others.map((r) => r.path).every((p) => p.startsWith('/api/openapi/'))).toBe(true);
  });

  it('each endpoint lists its error rows with code, message and status', () => {
    const rows = sim.orderPlace.errorRows();
    expect(rows).toContainEqual({
      status: 200,
      errorCode: 7,
      errorMessage: 'Invalid order size',
      text: 'Invalid order size',
      kinds: ['invalid_size'],
      fields: ['size'],
    });
    expect(rows).toContainEqual(expect.objectContaining({ status: 401, errorCode: 401, errorMessage: 'Unauthorized' }));
    expect(rows).toContainEqual(expect.objectContaining({ status: 400, errorMessage: 'Malformed JSON body' }));
    const dynamic = rows.find((r) => r.kinds.includes('price_required'));
    expect(dynamic).toMatchObject({ errorCode: 2, errorMessage: null, text: '{limitPrice|stopPrice} is required for this order type' });
    expect(dynamic?.fields).toEqual(['limitPrice', 'stopPrice']);
    // Rows sharing code and message are one answer.
    expect(sim.loginKey.errorRows().filter((r) => r.errorMessage === 'Invalid credentials')).toEqual([
      expect.objectContaining({ kinds: ['missing_credentials', 'invalid_credentials', 'user_unverified', 'user_disabled'], fields: ['userName', 'apiKey'] }),
    ]);
  });
});
