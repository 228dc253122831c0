// One-cancels-other between manual orders, as the desk shows it (pure but for the store at the end).
// The engine keeps a link group per `linkedOrderId` (engine.ts, "Links": a member's fill cancels the
// others; a cancel does not). The spec's order view the desk reads carries no link, so the desk
// remembers the links it asked for, per session in this browser, as it remembers planned brackets:
// order id → its group (the id of the first order of the group). A link a bot made is not shown.

export type Links = Record<string, number>;

/** The links after `newId` was placed linked to `withId`: it joins `withId`'s group (or starts one with it). */
export function linked(links: Links, newId: number, withId: number): Links {
  const group = links[String(withId)] ?? withId;
  return { ...links, [String(withId)]: group, [String(newId)]: group };
}

/** The working orders one-cancels-other with `orderId` (none when it is in no group). */
export function partners(links: Links, orderId: number, workingIds: readonly number[]): number[] {
  const group = links[String(orderId)];
  if (group === undefined) return [];
  return workingIds.filter((id) => id !== orderId && links[String(id)] === group);
}

/** The links of working orders only (a filled or canceled member leaves its group); the same object when nothing left. */
export function pruned(links: Links, workingIds: readonly number[]): Links {
  const working = new Set(workingIds.map(String));
  const keys = Object.keys(links);
  if (keys.every((k) => working.has(k))) return links;
  return Object.fromEntries(keys.filter((k) => working.has(k)).map((k) => [k, links[k]]));
}

const KEY = (accountId: number) => `rd.desk.links.${accountId}`;

export function loadLinks(accountId: number): Links {
  try {
    const v = JSON.parse(localStorage.getItem(KEY(accountId)) ?? '{}');
    if (v && typeof v === 'object' && Object.values(v).every((g) => Number.isInteger(g))) return v as Links;
  } catch {}
  return {};
}

export function saveLinks(accountId: number, links: Links): void {
  try {
    localStorage.setItem(KEY(accountId), JSON.stringify(links));
  } catch {}
}
