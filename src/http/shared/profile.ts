// Which API profile a request is answered under (src/domain/api-profile.ts, docs/gateway-profile.md):
// the web console always gets the spec's shapes (it is our own client, typed by them); a bot gets the
// profile its base URL names (`/live/api/sim`, `/spec/api/sim`: one user may run two bots written
// against different libraries with one key, each changing only its URLs), else its API key's choice,
// read on every request (so every token of the key follows a change at once), else the server's
// API_PROFILE.

import type { Config } from '../../config.ts';
import type { ApiProfile } from '../../domain/api-profile.ts';
import type { SymbolIdStyle } from '../../domain/symbol-id.ts';
import type { Principal } from '../../service/auth.ts';

export function profileOf(config: Config, principal: Principal, request?: Request): ApiProfile {
  if (principal.console) return 'spec';
  return (request ? profileOfPath(new URL(request.url).pathname) : undefined) ?? principal.profile ?? principal.user.apiKeyProfile ?? config.apiProfile;
}

/** The profile a base URL names: `/live/…` or `/spec/…`; undefined for every other path. */
export function profileOfPath(path: string): ApiProfile | undefined {
  return path.startsWith('/live/') ? 'live' : path.startsWith('/spec/') ? 'spec' : undefined;
}

/** Where the families and hubs are served again for a profile chosen by URL. */
export const PROFILE_PREFIXES = ['/live', '/spec'] as const;

/** `symbolId`'s form under a profile: the live gateway's `F.US.ENQ` unless SYMBOL_ID_STYLE was set. */
export function symbolIdStyleOf(config: Config, profile: ApiProfile): SymbolIdStyle {
  return profile === 'live' && !config.symbolIdStyleExplicit ? 'gateway' : config.symbolIdStyle;
}
