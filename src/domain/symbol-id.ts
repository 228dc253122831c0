// `symbolId`, the instrument key Contract and Order responses carry beside the contract ID, in the
// two forms we serve (setting SYMBOL_ID_STYLE):
// - plain (the spec's "plain instrument symbol", the default): `NQ`.
// - gateway (the real ProjectX gateway's): `F.US.{exchangeSymbol}`, `F.US.ENQ`. Some gateway clients
//   resolve "NQ" by looking for this value in Contract/available.
// The gateway form is the contract ID without `CON.` and the month (`CON.F.US.ENQ.H25` → `F.US.ENQ`),
// and contractIdFor builds the ID from gatewaySymbolId, so the two can never name different roots.
// Inputs accept both forms whatever the setting (findInstrument strips the `F.US.` prefix).

/** The two names of an instrument that symbol IDs are made of (an `Instrument`, instrument.ts, has both). */
export interface SymbolNames {
  readonly symbol: string;
  readonly exchangeSymbol: string;
}

export const SYMBOL_ID_STYLES = ['plain', 'gateway'] as const;
export type SymbolIdStyle = (typeof SYMBOL_ID_STYLES)[number];

/** The setting's value, case-insensitive; undefined when it is neither style. */
export function parseSymbolIdStyle(text: string): SymbolIdStyle | undefined {
  const v = text.trim().toLowerCase();
  return SYMBOL_ID_STYLES.find((s) => s === v);
}

/** `F.US.{exchangeSymbol}`: NQ → `F.US.ENQ`, GC → `F.US.GCE`, EURUSD → `F.US.EURUSD`. */
export function gatewaySymbolId(inst: SymbolNames): string {
  return `F.US.${inst.exchangeSymbol}`;
}

export function symbolIdFor(inst: SymbolNames, style: SymbolIdStyle): string {
  return style === 'gateway' ? gatewaySymbolId(inst) : inst.symbol;
}

const GATEWAY_SYMBOL_ID_RE = /^F\.US\.([A-Za-z0-9]+)$/i;

/** The symbol a gateway symbol ID names (`f.us.enq` → `enq`); other text is returned unchanged. */
export function stripGatewayPrefix(text: string): string {
  const m = GATEWAY_SYMBOL_ID_RE.exec(text.trim());
  return m ? m[1] : text;
}
