// Which API profile a request is answered under (src/domain/api-profile.ts, docs/gateway-profile.md):
// the web console always gets the spec's shapes (it is our own client, typed by them); a bot gets its
// API key's choice, read on every request (so every token of the key follows a change at once), or
// else the server's API_PROFILE.

import type { Config } from '../../config.ts';
import type { ApiProfile } from '../../domain/api-profile.ts';
import type { SymbolIdStyle } from '../../domain/symbol-id.ts';
import type { Principal } from '../../service/auth.ts';

export function profileOf(config: Config, principal: Principal): ApiProfile {
  if (principal.console) return 'spec';
  return principal.user.apiKeyProfile ?? config.apiProfile;
}

/** `symbolId`'s form under a profile: the live gateway's `F.US.ENQ` unless SYMBOL_ID_STYLE was set. */
export function symbolIdStyleOf(config: Config, profile: ApiProfile): SymbolIdStyle {
  return profile === 'live' && !config.symbolIdStyleExplicit ? 'gateway' : config.symbolIdStyle;
}
