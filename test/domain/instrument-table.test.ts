// The catalogue as data (src/domain/instruments.json, checked by instrument-table.ts): every row's
// contract facts as the exchanges publish them, the tick = 1/k invariant, contract months and roll
// dates of the new rules, hours, which profile lists which row, and the load check's errors.
import { describe, expect, it } from 'bun:test';
import { contractIdFor, frontMonth, MONTH_CODES } from '../../src/domain/contract-id.ts';
import {
  CATALOGUE, findInstrument, INSTRUMENTS, instrumentsOf, priceToTicks, ticksToCents, ticksToPrice,
} from '../../src/domain/instrument.ts';
import { checkTable } from '../../src/domain/instrument-table.ts';
import ROWS from '../../src/domain/instruments.json';

const SEVEN = ['NQ', 'ES', 'MNQ', 'MES', 'GC', 'EURUSD', 'LIGHTCMDUSD'];
const NEW = ['YM', 'MYM', 'RTY', 'M2K', 'CL', 'MCL', 'MGC', 'NG', 'ZN', 'ZB', '6E', '6B', '6J'];

// symbol → [exchange symbol in contract IDs, tick size, tick value in USD, micro]: CME Group's contract specs.
const FACTS: Record<string, [string, number, number, boolean]> = {
  NQ: ['ENQ', 0.25, 5, false], ES: ['EP', 0.25, 12.5, false], MNQ: ['MNQ', 0.25, 0.5, true], MES: ['MES', 0.25, 1.25, true],
  GC: ['GCE', 0.1, 10, false], EURUSD: ['EURUSD', 0.00001, 1, false], LIGHTCMDUSD: ['LIGHTCMDUSD', 0.01, 10, false],
  YM: ['YM', 1, 5, false], MYM: ['MYM', 1, 0.5, true], RTY: ['RTY', 0.1, 5, false], M2K: ['M2K', 0.1, 0.5, true],
  CL: ['CLE', 0.01, 10, false], MCL: ['MCLE', 0.01, 1, true], MGC: ['MGC', 0.1, 1, true], NG: ['NGE', 0.001, 10, false],
  ZN: ['TYA', 1 / 64, 15.625, false], ZB: ['USA', 1 / 32, 31.25, false],
  '6E': ['EU6', 0.00005, 6.25, false], '6B': ['BP6', 0.0001, 6.25, false], '6J': ['JY6', 0.0000005, 6.25, false],
};

describe('every row', () => {
  it('the catalogue is the seven of the spec, then the gateway\'s common list', () => {
    expect(CATALOGUE.map((i) => i.symbol)).toEqual([...SEVEN, ...NEW]);
  });

  it.each(Object.entries(FACTS))('%s: exchange symbol, tick size and value, micro, gateway symbol ID', (symbol, [exchange, tick, value, micro]) => {
    const i = findInstrument(symbol, 'all')!;
    expect([i.exchangeSymbol, i.tickSize, i.tickValueCents / 100, i.isMicro, i.gatewaySymbolId]).toEqual([exchange, tick, value, micro, `F.US.${exchange}`]);
  });

  it('tick size is 1/k: ticks ↔ price round-trips exactly over a span of prices, and the price prints as its decimal', () => {
    for (const i of CATALOGUE) {
      expect(i.ticksPerPoint * i.tickSize).toBe(1);
      expect(Number.isInteger(i.ticksPerPoint)).toBe(true);
      for (let t = i.genStartPriceTicks - 500; t <= i.genStartPriceTicks + 500; t += 7) {
        const p = ticksToPrice(i, t);
        expect(priceToTicks(i, p)).toBe(t);
        expect(Number(p.toFixed(i.priceDecimals))).toBe(p); // the double is the decimal of priceDecimals digits
      }
      expect(priceToTicks(i, ticksToPrice(i, i.genStartPriceTicks) + i.tickSize / 2)).toBeUndefined();
    }
  });

  it('money: whole cents a side and a margin; a tick\'s value in cents, ZN\'s half cent rounded half away from zero', () => {
    for (const i of CATALOGUE) {
      expect([Number.isInteger(i.feePerSideCents), Number.isInteger(i.dayMarginCents), i.feePerSideCents > 0, i.dayMarginCents > 0]).toEqual([true, true, true, true]);
      for (const t of [-3, -1, 0, 1, 2, 7]) expect(Number.isInteger(ticksToCents(t, i.tickValueCents))).toBe(true);
    }
    const zn = findInstrument('ZN', 'all')!;
    expect([1, 2, 3, -1, -3].map((t) => ticksToCents(t, zn.tickValueCents))).toEqual([1563, 3125, 4688, -1563, -4688]);
  });

  it('hours: every row trades CME Globex (Sun–Fri 17:00–16:00 CT) but spot EURUSD (24×5 New York)', () => {
    expect(CATALOGUE.filter((i) => i.session !== 'cme_globex').map((i) => i.symbol)).toEqual(['EURUSD']);
    expect(CATALOGUE.find((i) => i.session !== 'cme_globex' && i.session !== 'fx_24x5')).toBeUndefined();
  });

  it('contract months: the codes each row\'s front month takes over two years', () => {
    const months = (symbol: string) => {
      const i = findInstrument(symbol, 'all')!;
      const seen = new Set<string>();
      for (let d = 0; d < 731; d++) seen.add(MONTH_CODES[frontMonth(i, Date.UTC(2024, 0, 1) + d * 86_400_000).month - 1]);
      return [...seen].sort().join('');
    };
    for (const s of ['NQ', 'ES', 'MNQ', 'MES', 'YM', 'MYM', 'RTY', 'M2K', 'ZN', 'ZB', '6E', '6B', '6J']) expect(months(s)).toBe('HMUZ');
    for (const s of ['GC', 'MGC']) expect(months(s)).toBe('GJMQZ');
    for (const s of ['LIGHTCMDUSD', 'CL', 'MCL', 'NG', 'EURUSD']) expect(months(s)).toBe([...MONTH_CODES].sort().join(''));
  });

  it('micros count as the plan counts them: the six micros and no other', () => {
    expect(CATALOGUE.filter((i) => i.isMicro).map((i) => i.symbol)).toEqual(['MNQ', 'MES', 'MYM', 'M2K', 'MCL', 'MGC']);
  });
});

describe('the new roll rules, on the day before and the day of each roll (hand-computed)', () => {
  const on = (symbol: string, date: string) => contractIdFor(findInstrument(symbol, 'all')!, Date.parse(`${date}T12:00:00Z`));
  it.each([
    // Treasury: first notice Fri 2025-02-28 (last business day of February); 3 business days before: Tue 02-25.
    ['ZN', '2025-02-24', 'CON.F.US.TYA.H25'], ['ZN', '2025-02-25', 'CON.F.US.TYA.M25'],
    ['ZB', '2025-02-24', 'CON.F.US.USA.H25'], ['ZB', '2025-02-25', 'CON.F.US.USA.M25'],
    // FX: third Wednesday 2025-03-19, last trade Mon 03-17; 5 business days before: Mon 03-10.
    ['6E', '2025-03-09', 'CON.F.US.EU6.H25'], ['6E', '2025-03-10', 'CON.F.US.EU6.M25'],
    ['6J', '2025-03-09', 'CON.F.US.JY6.H25'], ['6B', '2025-03-10', 'CON.F.US.BP6.M25'],
    // Natural gas April: last trade Thu 2025-03-27 (3 business days before 04-01); 5 before: Thu 03-20.
    ['NG', '2025-03-19', 'CON.F.US.NGE.J25'], ['NG', '2025-03-20', 'CON.F.US.NGE.K25'],
    // As their minis: MCL as crude (CL's own dates), MGC as gold, MYM as the equity index.
    ['MCL', '2025-03-12', 'CON.F.US.MCLE.J25'], ['MCL', '2025-03-13', 'CON.F.US.MCLE.K25'],
    ['CL', '2025-03-13', 'CON.F.US.CLE.K25'], ['MGC', '2025-03-26', 'CON.F.US.MGC.M25'], ['MYM', '2025-03-13', 'CON.F.US.MYM.M25'],
  ])('%s on %s: %s', (symbol, date, id) => {
    expect(on(symbol, date)).toBe(id);
  });
});

describe('profiles: which lists what', () => {
  it('spec: exactly the seven, in their order; live: all of them', () => {
    expect(INSTRUMENTS.map((i) => i.symbol)).toEqual(SEVEN);
    expect(instrumentsOf('spec')).toBe(INSTRUMENTS);
    expect(instrumentsOf('live').map((i) => i.symbol)).toEqual([...SEVEN, ...NEW]);
  });

  it('lookups follow the profile: CL, CLE and F.US.TYA are unknown to the spec, known to live', () => {
    for (const name of ['CL', 'CLE', 'F.US.TYA', 'zn', '6J', 'JY6']) {
      expect(findInstrument(name)).toBeUndefined();
      expect(findInstrument(name, 'live')).toBeDefined();
    }
    expect(findInstrument('CL', 'live')!.symbol).toBe('CL');
    expect(findInstrument('F.US.TYA', 'live')!.symbol).toBe('ZN');
  });
});

describe('the load check', () => {
  const row = () => structuredClone(ROWS[0]) as Record<string, any>;
  it.each([
    ['a tick that is not 1/k', { tickSize: 0.3 }, 'src/domain/instruments.json row 0 (NQ): tickSize must be 1/k for a whole k'],
    ['a missing field', { feePerSideCents: undefined }, 'src/domain/instruments.json row 0 (NQ): feePerSideCents must be an integer above 0'],
    ['a wrong gateway symbol ID', { gatewaySymbolId: 'F.US.NQ' }, 'src/domain/instruments.json row 0 (NQ): gatewaySymbolId must be F.US.ENQ'],
    ['an unknown roll rule', { rollRule: 'weekly' }, 'src/domain/instruments.json row 0 (NQ): rollRule must be one of equity_index_quarterly, gold_active_months, crude_monthly, spot_calendar_month, treasury_quarterly, fx_futures_quarterly, natural_gas_monthly'],
    ['an unknown profile', { profiles: ['beta'] }, 'src/domain/instruments.json row 0 (NQ): profiles must list one or more of spec, live'],
    ['a bad band', { generator: { ...ROWS[0].generator, band: [2, 1] } }, 'src/domain/instruments.json row 0 (NQ) generator: band must be [low, high] prices, 0 < low < high'],
  ])('%s', (_name, patch, message) => {
    expect(() => checkTable([{ ...row(), ...patch }])).toThrow(message);
  });

  it('names unique across symbols and exchange symbols; a path leader of the same tick', () => {
    expect(() => checkTable([row(), { ...row(), symbol: 'XX' }])).toThrow('src/domain/instruments.json (XX): symbol ENQ names two rows');
    const follower = { ...row(), symbol: 'MZ', exchangeSymbol: 'MZ', gatewaySymbolId: 'F.US.MZ', tickSize: 0.5, generator: { ...ROWS[0].generator, pathSymbol: 'NQ' } };
    expect(() => checkTable([row(), follower])).toThrow('src/domain/instruments.json (MZ): generator.pathSymbol must name a row without a pathSymbol and with the same tick size');
    expect(checkTable(ROWS).length).toBe(20);
  });
});
