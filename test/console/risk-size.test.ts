// Size by dollar risk (src/console/pages/desk/risk-size.ts): floor(risk / (stop ticks × tick value)),
// nothing below one contract's risk, capped by the plan's limit in the instrument's contracts.
import { describe, expect, it } from 'bun:test';
import { contractLimit, riskSize, stopDistanceTicks } from '../../src/console/pages/desk/risk-size.ts';

const nq = { tickValue: 5, maxContracts: null, isMicro: false };

describe('size by dollar risk', () => {
  it('is the whole contracts the risk covers at the stop: $500 at 40 NQ ticks ($200 a contract) is 2', () => {
    expect(riskSize({ ...nq, riskUsd: 500, stopTicks: 40 })).toEqual({ size: 2, perContract: 200, note: null });
    expect(riskSize({ ...nq, riskUsd: 600, stopTicks: 40 })).toEqual({ size: 3, perContract: 200, note: null });
  });

  it('counts in cents: a $0.50 micro tick times 37 ticks is exactly $18.50, and $37 buys exactly 2', () => {
    expect(riskSize({ tickValue: 0.5, maxContracts: null, isMicro: true, riskUsd: 37, stopTicks: 37 })).toEqual({ size: 2, perContract: 18.5, note: null });
    expect(riskSize({ tickValue: 0.1, maxContracts: null, isMicro: false, riskUsd: 0.3, stopTicks: 1 }).size).toBe(3);
  });

  it('sizes nothing, and says so, when the risk is below one contract at the stop', () => {
    expect(riskSize({ ...nq, riskUsd: 199.99, stopTicks: 40 })).toEqual({ size: null, perContract: 200, note: '$199.99 is below one contract’s risk of $200.00 at 40 ticks' });
    expect(riskSize({ ...nq, riskUsd: 200, stopTicks: 40 }).size).toBe(1);
  });

  it('is capped at the plan’s limit, micros counting 1/10 of a mini, with the reason', () => {
    expect(riskSize({ ...nq, maxContracts: 5, riskUsd: 10_000, stopTicks: 10 })).toEqual({ size: 5, perContract: 50, note: 'Capped at the plan’s limit of 5 contracts: the risk would buy 200' });
    expect(riskSize({ tickValue: 0.5, maxContracts: 5, isMicro: true, riskUsd: 10_000, stopTicks: 10 })).toEqual({ size: 50, perContract: 5, note: 'Capped at the plan’s limit of 50 micros (5 minis): the risk would buy 2000' });
    expect(riskSize({ ...nq, maxContracts: 5, riskUsd: 1000, stopTicks: 40 })).toEqual({ size: 5, perContract: 200, note: null });
  });

  it('needs a risk and a stop', () => {
    expect(riskSize({ ...nq, riskUsd: null, stopTicks: 40 })).toEqual({ size: null, perContract: null, note: 'Enter the dollars to risk' });
    expect(riskSize({ ...nq, riskUsd: 0, stopTicks: 40 }).size).toBeNull();
    expect(riskSize({ ...nq, riskUsd: 500, stopTicks: null })).toEqual({ size: null, perContract: null, note: 'Set a stop to size by risk: a stop-loss in ticks, or a stop order’s price' });
  });

  it('a stop order’s distance from the entry, in ticks; the limit in the instrument’s contracts', () => {
    expect(stopDistanceTicks(20_000, 19_990, 0.25)).toBe(40);
    expect(stopDistanceTicks(20_000, 20_002.5, 0.25)).toBe(10);
    expect(stopDistanceTicks(20_000, 20_000, 0.25)).toBeNull();
    expect(stopDistanceTicks(null, 19_990, 0.25)).toBeNull();
    expect(contractLimit(3, true)).toBe(30);
    expect(contractLimit(3, false)).toBe(3);
    expect(contractLimit(null, true)).toBeNull();
  });
});
