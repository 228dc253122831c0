// Contract lookup over the instrument catalog, with the front month at call time.

import { contractIdFor, contractNameFor, instrumentForContractId } from '../domain/contract-id.ts';
import type { ApiProfile } from '../domain/api-profile.ts';
import { instrumentsOf, type Instrument } from '../domain/instrument.ts';
import { gatewaySymbolId, symbolIdFor, type SymbolIdStyle } from '../domain/symbol-id.ts';
import { limits } from '../config.ts';
import type { Clock } from '../lib/clock.ts';

export interface Contract {
  instrument: Instrument;
  id: string;
  name: string;
  /** `NQ` or `F.US.ENQ`, per the SYMBOL_ID_STYLE setting. */
  symbolId: string;
}

/**
 * How a request names contracts: its `symbolId` form and the time whose front month the contract ID
 * and name carry (the wall clock by default; the live profile's replay clock passes the session's).
 */
export interface ContractView {
  readonly style?: SymbolIdStyle;
  readonly atMs?: number;
  /** The profile whose instruments are listed and found (instruments.json's `profiles`); the spec's by default. */
  readonly listedIn?: ApiProfile;
}

export class ContractService {
  constructor(private readonly clock: Clock, private readonly symbolIdStyle: SymbolIdStyle = 'plain') {}

  contractFor(inst: Instrument, view: ContractView = {}): Contract {
    const atMs = view.atMs ?? this.clock.nowMs();
    const symbolId = symbolIdFor(inst, view.style ?? this.symbolIdStyle);
    return { instrument: inst, id: contractIdFor(inst, atMs), name: contractNameFor(inst, atMs), symbolId };
  }

  /**
   * Case-insensitive substring match on symbol, exchange symbol, contract name, description, the
   * gateway symbol ID (`F.US.ENQ`) and the contract ID; null, empty or omitted text returns all.
   */
  search(searchText: string | null, view: ContractView = {}): Contract[] {
    const all = instrumentsOf(view.listedIn ?? 'spec').map((i) => this.contractFor(i, view));
    const text = searchText?.trim().toLowerCase() ?? '';
    if (text === '') return all.slice(0, limits.contractSearchMax);
    const byId = instrumentForContractId(searchText, view.listedIn);
    return all
      .filter((c) => {
        if (byId === c.instrument) return true;
        const i = c.instrument;
        const fields = [i.symbol, i.exchangeSymbol, c.name, i.description, gatewaySymbolId(i), c.id];
        return fields.some((f) => f.toLowerCase().includes(text));
      })
      .slice(0, limits.contractSearchMax);
  }

  /** The contract a received ID names (matched on its symbol); `id` echoes the ID sent. */
  byId(contractId: string, view: ContractView = {}): Contract | undefined {
    const inst = instrumentForContractId(contractId, view.listedIn);
    if (!inst) return undefined;
    return { ...this.contractFor(inst, view), id: contractId };
  }
}
