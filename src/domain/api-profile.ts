// The API profile a bot's requests are answered under (docs/gateway-profile.md):
// - spec: the product spec's rules, field by field (the default).
// - live: the live ProjectX gateway's behaviour where it differs from the spec (its shapes, its whole
//   order model, History newest first, and the replay clock as the bot's "now"), for client libraries
//   written against the live gateway.
// The server's default is the API_PROFILE setting; an API key's own choice wins over it.

export const API_PROFILES = ['spec', 'live'] as const;
export type ApiProfile = (typeof API_PROFILES)[number];

/** The text's profile, case-insensitive; undefined when it names none. */
export function parseApiProfile(text: string): ApiProfile | undefined {
  const v = text.trim().toLowerCase();
  return API_PROFILES.find((p) => p === v);
}
