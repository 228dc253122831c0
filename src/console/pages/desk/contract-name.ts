// Which contract was the front month on the replayed date, shown beside the API's current name: a
// December 2024 replay of NQ traded NQZ4, while Contract/search names today's front (NQZ6). The roll
// rules are the server's own (src/domain/contract-id.ts), one copy for both sides:
// - equity index futures (NQ, ES, MNQ, MES): H M U Z, expiry the third Friday, the front rolls eight
//   calendar days before it (CME's convention);
// - gold (GC): G J M Q Z, rolls three business days before first notice;
// - crude (LIGHTCMDUSD): every month, rolls five business days before last trade;
// - spot forex (EURUSD) has no expiry: no replayed contract is named (a month code would be noise).

import { contractNameFor, instrumentForContractId } from '../../../domain/contract-id.ts';

/**
 * The front contract's name (`NQZ4`) of the instrument `contractId` names, on the UTC date of `atIso`;
 * null for spot instruments, unknown contracts and a missing time.
 */
export function replayedContractName(contractId: string, atIso: string | null): string | null {
  if (!atIso) return null;
  const inst = instrumentForContractId(contractId);
  const ms = Date.parse(atIso);
  if (!inst || inst.rollRule === 'spot_calendar_month' || !Number.isFinite(ms)) return null;
  return contractNameFor(inst, ms);
}
