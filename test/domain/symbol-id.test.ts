// symbolId in its two styles (src/domain/symbol-id.ts) and the symbol lookups that accept both.
import { describe, expect, it } from 'bun:test';
import { contractIdFor } from '../../src/domain/contract-id.ts';
import { findInstrument, INSTRUMENTS } from '../../src/domain/instrument.ts';
import { findLegacyInstrument } from '../../src/domain/legacy-instruments.ts';
import { gatewaySymbolId, parseSymbolIdStyle, stripGatewayPrefix, symbolIdFor } from '../../src/domain/symbol-id.ts';

describe('the mapping', () => {
  it('every instrument, plain and gateway', () => {
    expect(INSTRUMENTS.map((i) => [i.symbol, symbolIdFor(i, 'plain'), symbolIdFor(i, 'gateway')])).toEqual([
      ['NQ', 'NQ', 'F.US.ENQ'],
      ['ES', 'ES', 'F.US.EP'],
      ['MNQ', 'MNQ', 'F.US.MNQ'],
      ['MES', 'MES', 'F.US.MES'],
      ['GC', 'GC', 'F.US.GCE'],
      ['EURUSD', 'EURUSD', 'F.US.EURUSD'],
      ['LIGHTCMDUSD', 'LIGHTCMDUSD', 'F.US.LIGHTCMDUSD'],
    ]);
  });

  it('the gateway symbol ID is the contract ID without CON. and the month, on every day of two years', () => {
    const from = Date.UTC(2024, 0, 1);
    for (let d = 0; d < 731; d++) {
      for (const i of INSTRUMENTS) {
        const id = contractIdFor(i, from + d * 86_400_000);
        expect(id).toMatch(/^CON\.F\.US\.[A-Z0-9]+\.[FGHJKMNQUVXZ]\d\d$/);
        expect(id.slice('CON.'.length, id.lastIndexOf('.'))).toBe(gatewaySymbolId(i));
      }
    }
  });
});

describe('parseSymbolIdStyle', () => {
  it.each([
    ['plain', 'plain'],
    ['gateway', 'gateway'],
    ['Gateway', 'gateway'],
    [' PLAIN ', 'plain'],
    ['', undefined],
    ['gate way', undefined],
    ['projectx', undefined],
  ])('%p → %p', (text, style) => {
    expect(parseSymbolIdStyle(text)).toBe(style as ReturnType<typeof parseSymbolIdStyle>);
  });
});

describe('inputs accept both forms', () => {
  it('findInstrument: plain, exchange and gateway forms of every instrument, any case', () => {
    for (const i of INSTRUMENTS) {
      for (const text of [i.symbol, i.exchangeSymbol, gatewaySymbolId(i), gatewaySymbolId(i).toLowerCase(), `F.US.${i.symbol}`, ` ${gatewaySymbolId(i)} `]) {
        expect(findInstrument(text)).toBe(i);
      }
    }
  });

  it.each(['F.US.', 'F.US.ZZZ', 'F.US.CLE', 'F.US.EU6', 'F.US.ENQ.H25', 'X.F.US.ENQ', 'F.EU.ENQ', 'FUSENQ'])(
    'findInstrument(%p) is undefined',
    (text) => {
      expect(findInstrument(text)).toBeUndefined();
    },
  );

  it('stripGatewayPrefix touches only a whole gateway symbol ID', () => {
    expect(stripGatewayPrefix('F.US.ENQ')).toBe('ENQ');
    expect(stripGatewayPrefix(' f.us.gce ')).toBe('gce');
    expect(stripGatewayPrefix('CON.F.US.ENQ.H25')).toBe('CON.F.US.ENQ.H25');
    expect(stripGatewayPrefix('NQ')).toBe('NQ');
  });

  it('the earlier family: its own symbol and F.US.{symbol}; current-family roots name nothing', () => {
    expect(findLegacyInstrument('F.US.CL')?.symbol).toBe('CL');
    expect(findLegacyInstrument('f.us.eurusd')?.symbol).toBe('EURUSD');
    expect(findLegacyInstrument('F.US.NQ')?.symbol).toBe('NQ');
    expect(findLegacyInstrument('F.US.ENQ')).toBeUndefined();
    expect(findLegacyInstrument('F.US.LIGHTCMDUSD')).toBeUndefined();
    expect(findLegacyInstrument('F.US.CLE')).toBeUndefined();
  });
});
