// SYMBOL_ID_STYLE: `symbolId` in Contract and Order responses is the plain symbol (`NQ`, the spec's,
// the default) or the real gateway's form (`F.US.ENQ`); symbol inputs accept both forms in both modes.
import { describe, expect, it } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Config, loadConfig } from '../../../src/config.ts';
import type { SymbolIdStyle } from '../../../src/domain/symbol-id.ts';
import { makeApp, makeWebUser, webCall, webLogin } from '../../support/app.ts';
import { barsOf, dayOf } from '../../support/bars.ts';
import { legacyLogin, legacyPost } from '../../support/legacy.ts';
import {
  at, DAY, NQ_CONTRACT, OPEN_S, openOrders, orderObject, orders, place, type ReplayTestApp, step, ticks, WALL_MS,
} from '../../support/replay.ts';

const STYLES: SymbolIdStyle[] = ['plain', 'gateway'];

// The catalog in search order. T0 (2025-03-03) and WALL_MS (2025-03-10) are both before the March
// index roll (2025-03-13): index H25, gold J25, crude J25, EURUSD H25.
const CATALOG = [
  { plain: 'NQ', gateway: 'F.US.ENQ', id: 'CON.F.US.ENQ.H25' },
  { plain: 'ES', gateway: 'F.US.EP', id: 'CON.F.US.EP.H25' },
  { plain: 'MNQ', gateway: 'F.US.MNQ', id: 'CON.F.US.MNQ.H25' },
  { plain: 'MES', gateway: 'F.US.MES', id: 'CON.F.US.MES.H25' },
  { plain: 'GC', gateway: 'F.US.GCE', id: 'CON.F.US.GCE.J25' },
  { plain: 'EURUSD', gateway: 'F.US.EURUSD', id: 'CON.F.US.EURUSD.H25' },
  { plain: 'LIGHTCMDUSD', gateway: 'F.US.LIGHTCMDUSD', id: 'CON.F.US.LIGHTCMDUSD.J25' },
];
const symbolIdOf = (plain: string, style: SymbolIdStyle) => CATALOG.find((c) => c.plain === plain)![style];

/** An app in `style` whose NQ data is one 1 s bar a minute from 14:30 on 2025-03-03 (as in support/replay.ts). */
async function styledApp(style: SymbolIdStyle, bars = [20000, 20000, 20000]): Promise<ReplayTestApp> {
  const config: Partial<Config> = { symbolIdStyle: style, dataStartDate: '2024-01-08', dataEndDate: '2024-01-09' };
  const t = await makeApp({ nowMs: WALL_MS, config });
  const rows = bars.map((p, i) => [OPEN_S + i * 60, ticks(p), ticks(p), ticks(p), ticks(p), 1]);
  t.s.chunks.put('NQ', dayOf(`${DAY}T00:00:00Z`), 'import', barsOf(rows));
  return Object.assign(t, { token: await t.login() });
}

async function startWith(t: ReplayTestApp, body: Record<string, unknown>) {
  return t.post('Replay/start', { startDate: DAY, timeframe: '1m', ...body }, t.token);
}

describe('config: SYMBOL_ID_STYLE', () => {
  it.each([
    [undefined, 'plain'],
    ['', 'plain'],
    ['plain', 'plain'],
    ['gateway', 'gateway'],
    ['GATEWAY', 'gateway'],
    [' Plain ', 'plain'],
  ])('%p → %p', (value, style) => {
    expect(loadConfig({ SYMBOL_ID_STYLE: value }).symbolIdStyle).toBe(style as SymbolIdStyle);
  });

  it.each(['gw', 'projectx', 'plain,gateway', '1'])('%p is refused with a message naming the setting and its values', (value) => {
    expect(() => loadConfig({ SYMBOL_ID_STYLE: value })).toThrow(
      `SYMBOL_ID_STYLE must be one of plain, gateway, got ${JSON.stringify(value)}`,
    );
  });

  it('a bad value stops the server at startup, before it listens or touches the data directory', async () => {
    const dataDir = join(mkdtempSync(join(tmpdir(), 'symbol-id-style-')), 'data');
    try {
      const proc = Bun.spawn([process.execPath, 'src/main.ts'], {
        cwd: join(import.meta.dir, '..', '..', '..'),
        env: { ...process.env, SYMBOL_ID_STYLE: 'fancy', HOST: '127.0.0.1', PORT: '0', DATA_DIR: dataDir },
        stdout: 'pipe',
        stderr: 'pipe',
      });
      const killer = setTimeout(() => proc.kill(), 20_000);
      const code = await proc.exited;
      clearTimeout(killer);
      const stderr = await new Response(proc.stderr).text();
      expect(code).not.toBe(0);
      expect(stderr).toContain('SYMBOL_ID_STYLE must be one of plain, gateway, got "fancy"');
      expect(await Bun.file(join(dataDir, 'replaydesk.db')).exists()).toBe(false);
    } finally {
      rmSync(join(dataDir, '..'), { recursive: true, force: true });
    }
  });

  it('the default app is plain', async () => {
    const t = await makeApp();
    const r = await t.post('Contract/search', { searchText: 'F.US.ENQ' }, await t.login());
    expect(r.body.contracts.map((c: any) => c.symbolId)).toEqual(['NQ']);
  });
});

describe.each(STYLES)('%s style: Contract responses', (style) => {
  it('Contract/search and Contract/available list every contract with its symbolId', async () => {
    const t = await makeApp({ config: { symbolIdStyle: style } });
    const token = await t.login();
    for (const path of ['Contract/search', 'Contract/available']) {
      const r = await t.post(path, {}, token);
      expect(r.body.success).toBe(true);
      expect(r.body.contracts.map((c: any) => [c.id, c.symbolId])).toEqual(CATALOG.map((c) => [c.id, c[style]]));
    }
  });

  it('prints every field of a contract exactly, name and id unchanged by the style', async () => {
    const t = await makeApp({ config: { symbolIdStyle: style } });
    const r = await t.post('Contract/search', { searchText: 'F.US.EP' }, await t.login());
    expect(r.body.contracts).toEqual([
      {
        id: 'CON.F.US.EP.H25',
        name: 'ESH5',
        description: 'E-mini S&P 500',
        tickSize: 0.25,
        tickValue: 12.5,
        activeContract: true,
        symbolId: style === 'gateway' ? 'F.US.EP' : 'ES',
      },
    ]);
  });

  it.each([
    ['CON.F.US.GCE.Z24', 'GC'],
    ['F.US.GCE', 'GC'],
    ['GC', 'GC'],
    ['f.us.enq', 'NQ'],
    ['NQ', 'NQ'],
    ['F.US.MNQ', 'MNQ'],
  ])('Contract/searchById %p answers the contract with its symbolId, id echoing the ID sent', async (sent, plain) => {
    const t = await makeApp({ config: { symbolIdStyle: style } });
    const r = await t.post('Contract/searchById', { contractId: sent }, await t.login());
    expect(r.body.success).toBe(true);
    expect(r.body.contract.id).toBe(sent);
    expect(r.body.contract.symbolId).toBe(symbolIdOf(plain, style));
  });

  it('Contract/searchById of GC prints every field', async () => {
    const t = await makeApp({ config: { symbolIdStyle: style } });
    const r = await t.post('Contract/searchById', { contractId: 'F.US.GCE' }, await t.login());
    expect(r.body).toEqual({
      contract: {
        id: 'F.US.GCE',
        name: 'GCJ5',
        description: 'Gold (COMEX, 100 troy oz)',
        tickSize: 0.1,
        tickValue: 10,
        activeContract: true,
        symbolId: style === 'gateway' ? 'F.US.GCE' : 'GC',
      },
      success: true,
      errorCode: 0,
      errorMessage: null,
    });
  });
});

describe.each(STYLES)('%s style: symbol inputs accept both forms', (style) => {
  it.each([
    ['NQ', ['NQ', 'MNQ']],
    ['F.US.ENQ', ['NQ']],
    ['f.us.enq', ['NQ']],
    ['ES', ['ES', 'MES']],
    ['F.US.EP', ['ES']],
    ['GC', ['GC']],
    ['F.US.GCE', ['GC']],
    ['F.US.EURUSD', ['EURUSD']],
    ['F.US.LIGHTCMDUSD', ['LIGHTCMDUSD']],
    ['F.US.CLE', []], // CL futures are unavailable in this family (spec)
    ['F.US.EU6', []], // the gateway's Euro FX future is not our spot EURUSD
  ])('Contract/search searchText %p matches %p', async (text, plains) => {
    const t = await makeApp({ config: { symbolIdStyle: style } });
    const r = await t.post('Contract/search', { searchText: text }, await t.login());
    expect(r.body.contracts.map((c: any) => c.symbolId)).toEqual(plains.map((p) => symbolIdOf(p, style)));
  });

  it.each([
    ['instrumentSymbol', 'NQ'],
    ['instrumentSymbol', 'F.US.ENQ'],
    ['instrumentSymbol', 'f.us.enq'],
    ['instrumentSymbol', 'F.US.NQ'],
    ['instrumentSymbol', 'ENQ'],
    ['contractId', 'F.US.ENQ'],
    ['contractId', 'NQ'],
    ['contractId', 'CON.F.US.ENQ.Z24'],
  ])('Replay/start %s %p starts an NQ session', async (field, value) => {
    const t = await styledApp(style);
    const r = await startWith(t, { [field]: value });
    expect(r.body).toMatchObject({
      success: true,
      totalBars: 3,
      instrument: { name: 'NQH5', contractId: NQ_CONTRACT, tickSize: 0.25, tickValue: 5 },
    });
  });

  it.each([['F.US.ZZZ'], ['F.US.CLE'], ['F.US.ENQ.H25'], ['F.US.']])('Replay/start instrumentSymbol %p → Instrument not found', async (sym) => {
    const t = await styledApp(style);
    const r = await startWith(t, { instrumentSymbol: sym });
    expect(r.body).toMatchObject({ success: false, errorMessage: 'Instrument not found' });
  });

  it('History/retrieveBars answers the same bars for the contract ID, the gateway symbol ID and the plain symbol', async () => {
    const t = await styledApp(style);
    const req = (contractId: string) => ({
      contractId, unit: 2, unitNumber: 1, startTime: at(0), endTime: at(3), live: false, limit: 10, includePartialBar: false,
    });
    const byId = await t.post('History/retrieveBars', req(NQ_CONTRACT), t.token);
    expect(byId.body.success).toBe(true);
    expect(byId.body.bars.length).toBe(3);
    for (const id of ['F.US.ENQ', 'NQ']) expect((await t.post('History/retrieveBars', req(id), t.token)).body).toEqual(byId.body);
  });
});

describe.each(STYLES)('%s style: Order responses', (style) => {
  it('Order/search and Order/searchOpen carry the symbolId; Order/place takes either form as contractId', async () => {
    const t = await styledApp(style);
    const start = await startWith(t, { instrumentSymbol: style === 'gateway' ? 'F.US.ENQ' : 'NQ' });
    const x = { accountId: start.body.accountId, contractId: start.body.instrument.contractId };
    await step(t, x);
    expect((await place(t, x, { type: 1, side: 0, limitPrice: 19990 })).body.success).toBe(true);
    expect((await place(t, x, { contractId: 'F.US.ENQ', type: 1, side: 0, limitPrice: 19980 })).body.success).toBe(true);
    expect((await place(t, x, { contractId: 'NQ', type: 1, side: 0, limitPrice: 19970 })).body.success).toBe(true);
    const symbolId = style === 'gateway' ? 'F.US.ENQ' : 'NQ';
    expect(await orders(t, x)).toEqual([
      orderObject(x, { id: 3, limitPrice: 19970, symbolId }),
      orderObject(x, { id: 2, limitPrice: 19980, symbolId }),
      orderObject(x, { id: 1, limitPrice: 19990, symbolId }),
    ]);
    expect(await openOrders(t, x)).toEqual([
      orderObject(x, { id: 3, limitPrice: 19970, symbolId, status: 1 }),
      orderObject(x, { id: 2, limitPrice: 19980, symbolId, status: 1 }),
      orderObject(x, { id: 1, limitPrice: 19990, symbolId, status: 1 }),
    ]);
  });
});

describe('other families accept the gateway-shaped symbol too', () => {
  it('earlier family: Replay/start takes F.US.{symbol}, its own contract root; current-family roots stay unknown', async () => {
    const t = await styledApp('gateway');
    const token = await legacyLogin(t);
    const start = (instrumentSymbol: string) => legacyPost(t, 'Replay/start', { instrumentSymbol, startDate: DAY, timeframe: '1m' }, token);
    const r = await start('f.us.nq');
    expect(r.body).toMatchObject({ success: true, totalBars: 3, contractId: 'CON.F.US.NQ.H25' });
    expect((await start('F.US.ENQ')).body).toMatchObject({ success: false, errorMessage: 'Instrument not found' });
  });

  it('playground: a strategy saved with F.US.ENQ keeps the canonical instrument NQ', async () => {
    const t = await makeApp({ config: { symbolIdStyle: 'gateway' } });
    const u = await makeWebUser(t, { email: 'ann@example.com' });
    const cookie = await webLogin(t, u.email, u.password);
    const body = { name: 'Breakout', code: 'def on_bar(ctx, bar):\n    pass\n', instrument: 'F.US.ENQ', timeframe: '5m', params: {} };
    const r = await webCall(t, 'POST', '/api/playground/strategies/save', { cookie, body });
    expect(r.body.success).toBe(true);
    const g = await webCall(t, 'GET', `/api/playground/strategies/${r.body.id}`, { cookie });
    expect(g.body.strategy.instrument).toBe('NQ');
  });
});
