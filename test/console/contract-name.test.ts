// The contract a replay traded on its date, beside the API's current name (src/console/pages/desk/contract-name.ts).
import { describe, expect, it } from 'bun:test';
import { replayedContractName } from '../../src/console/pages/desk/contract-name.ts';

describe('the front contract on the replayed date', () => {
  it.each([
    // NQ: Z24 expires 2024-12-20, so the front rolls to H25 on 2024-12-12 (eight days before).
    ['CON.F.US.ENQ.Z26', '2024-12-02T14:30:00Z', 'NQZ4'],
    ['CON.F.US.ENQ.Z26', '2024-12-11T23:59:00Z', 'NQZ4'],
    ['CON.F.US.ENQ.Z26', '2024-12-12T00:00:00Z', 'NQH5'],
    ['CON.F.US.ENQ.Z26', '2025-03-03T00:01:00Z', 'NQH5'],
    ['CON.F.US.ENQ.Z26', '2025-03-13T09:00:00Z', 'NQM5'],
    ['CON.F.US.EP.Z26', '2024-06-12T12:00:00Z', 'ESM4'],
    ['CON.F.US.EP.Z26', '2024-06-13T12:00:00Z', 'ESU4'],
    ['CON.F.US.MNQ.Z26', '2025-09-10T12:00:00Z', 'MNQU5'],
    ['CON.F.US.MES.Z26', '2025-09-11T12:00:00Z', 'MESZ5'],
    // Gold: active months only (no V), rolled three business days before first notice.
    ['CON.F.US.GCE.G27', '2024-09-15T12:00:00Z', 'GCZ4'],
    ['CON.F.US.GCE.G27', '2024-11-26T12:00:00Z', 'GCG5'],
    // Crude: monthly, rolled five business days before the last trade.
    ['CON.F.US.LIGHTCMDUSD.F27', '2025-01-02T12:00:00Z', 'LIGHTCMDUSDG5'],
  ])('%s on %s traded as %s', (id, at, name) => {
    expect(replayedContractName(id, at)).toBe(name);
  });

  it('names none for spot forex, an unknown contract, or before the first bar', () => {
    expect(replayedContractName('CON.F.US.EURUSD.Z26', '2024-12-02T00:00:00Z')).toBeNull();
    expect(replayedContractName('CON.F.US.NOPE.Z26', '2024-12-02T00:00:00Z')).toBeNull();
    expect(replayedContractName('CON.F.US.ENQ.Z26', null)).toBeNull();
  });
});
