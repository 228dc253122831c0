// GET /api/auth/data-ranges: the days of data the server holds per instrument, which the console's
// start form offers (the synthetic span joined with imported days, as Replay/start reads it).
import { describe, expect, it } from 'bun:test';
import { INSTRUMENTS } from '../../../src/domain/instrument.ts';
import { makeApp, makeWebUser, webCall, webLogin } from '../../support/app.ts';
import { barsOf, dayOf, secondsOf } from '../../support/bars.ts';

async function setup() {
  // Wall clock 2025-03-10: the synthetic span is fixed, longer than the 365 day bars one History read may hold.
  const t = await makeApp({ nowMs: Date.UTC(2025, 2, 10, 9), config: { dataStartDate: '2024-01-01', dataEndDate: '2025-03-07' } });
  const u = await makeWebUser(t);
  return { t, cookie: await webLogin(t, u.email, u.password) };
}

describe('GET /api/auth/data-ranges', () => {
  it('states every instrument’s first and last day of data, with the contract ID Contract/available names', async () => {
    const { t, cookie } = await setup();
    const r = await webCall(t, 'GET', '/api/auth/data-ranges', { cookie });
    expect(r.status).toBe(200);
    expect(r.body.success).toBe(true);
    expect(r.body.instruments).toHaveLength(INSTRUMENTS.length);
    const available = await t.post('Contract/available', {}, await t.login());
    const nq = r.body.instruments.find((i: any) => i.symbol === 'NQ');
    expect(nq).toEqual({ symbol: 'NQ', contractId: available.body.contracts.find((c: any) => c.symbolId === 'NQ').id, firstDate: '2024-01-01', lastDate: '2025-03-07' });
    for (const i of r.body.instruments) expect([i.firstDate, i.lastDate]).toEqual(['2024-01-01', '2025-03-07']);
  });

  it('extends an instrument’s range by its imported days', async () => {
    const { t, cookie } = await setup();
    const s = secondsOf('2025-03-12T14:30:00Z');
    t.s.chunks.put('ES', dayOf('2025-03-12T00:00:00Z'), 'import', barsOf([[s, 100, 100, 100, 100, 1]]));
    const r = await webCall(t, 'GET', '/api/auth/data-ranges', { cookie });
    const byDates = (sym: string) => r.body.instruments.find((i: any) => i.symbol === sym);
    expect(byDates('ES')).toMatchObject({ firstDate: '2024-01-01', lastDate: '2025-03-12' });
    expect(byDates('NQ')).toMatchObject({ firstDate: '2024-01-01', lastDate: '2025-03-07' });
  });

  it('needs the session cookie', async () => {
    const { t } = await setup();
    const r = await webCall(t, 'GET', '/api/auth/data-ranges');
    expect(r.status).toBe(401);
  });
});
