// POST /api/playground/speed without a runner: the spec's range (1 to 50) and the "max" extension for
// full speed. The schema refuses a value before any execution is looked up, so no run is needed to
// see which values are taken; a taken value with nothing running answers "No execution is running".
import { beforeAll, describe, expect, it } from 'bun:test';
import { makeApp, makeWebUser, type TestApp, webCall, webLogin } from '../../support/app.ts';

const RANGE = { success: false, errorCode: 1, errorMessage: 'speed must be a number from 1 to 50, or "max" for full speed' };
const NOT_RUNNING = { success: false, errorCode: 2, errorMessage: 'No execution is running' };

describe('POST speed', () => {
  let t: TestApp;
  let cookie: string;
  beforeAll(async () => {
    t = await makeApp();
    const u = await makeWebUser(t);
    cookie = await webLogin(t, u.email, u.password);
  });

  it.each([
    ['0', { speed: 0 }, RANGE],
    ['null', { speed: null }, RANGE],
    ['absent', {}, RANGE],
    ['0.5', { speed: 0.5 }, RANGE],
    ['51', { speed: 51 }, RANGE],
    ['-1', { speed: -1 }, RANGE],
    ['"MAX"', { speed: 'MAX' }, RANGE],
    ['"10"', { speed: '10' }, RANGE],
    ['1', { speed: 1 }, NOT_RUNNING],
    ['50', { speed: 50 }, NOT_RUNNING],
    ['"max" (full speed, an extension)', { speed: 'max' }, NOT_RUNNING],
  ] as const)('speed %s', async (_n, body, answer) => {
    const r = await webCall(t, 'POST', '/api/playground/speed', { cookie, body });
    expect(r.status).toBe(200);
    expect(r.body).toEqual(answer);
  });

  it('the API reference shows the range and "max"', async () => {
    const { speed } = await import('../../../src/http/playground/schemas.ts');
    const s = speed.requestSchema.properties.speed as unknown as { anyOf: { minimum?: number; maximum?: number; const?: unknown }[] };
    expect(s.anyOf.map((x) => [x.minimum, x.maximum, x.const])).toEqual([[1, 50, undefined], [undefined, undefined, 'max']]);
  });
});
