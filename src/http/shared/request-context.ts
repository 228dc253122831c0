// One request as the HTTP edge knows it: created where the request enters (the listening server,
// src/server.ts, which alone knows the peer's address; or the route, src/http/shared/endpoint.ts, for
// a request handed to the app directly) and passed down from the route to whatever reads the request:
// authentication, the body reader, the forward hop. It travels from the server to the route with the
// request object itself (a property under a symbol, set once), so no module keeps a map of requests.

/** The body as read by our families: a JSON object, or the marker of text that is not JSON (route.ts). */
export type Body = Record<string, unknown>;

export interface RequestContext {
  /** The request as served: a trusted hop's is rebuilt with the client's host (forward.ts `arrival`). */
  request: Request;
  /**
   * The client's address as this node knows it: the peer the listening server accepted (null when
   * the app was handed the request directly), or the one a trusted hop signed.
   */
  address: string | null;
  /** Came over a hop from another node of this cluster, its signature checked: never passed on again. */
  forwarded: boolean;
  /**
   * The body as sent, once read (null until then): read once, it serves the session lookup at the
   * edge, the endpoint's check and a hop to the session's owner.
   */
  bodyText: string | null;
  /** The body read leniently as JSON (route.ts `readLenientBody`), once. */
  body: Body | null;
}

const CONTEXT = Symbol('replaydesk.requestContext');

type Carrier = Request & { [CONTEXT]?: RequestContext };

/** The context of a request entering this node from `address` (null: unknown), carried by the request. */
export function enterRequest(request: Request, address: string | null): RequestContext {
  const ctx: RequestContext = { request, address, forwarded: false, bodyText: null, body: null };
  (request as Carrier)[CONTEXT] = ctx;
  return ctx;
}

/** The context the request entered with, or a new one for a request handed to the app directly. */
export function contextOf(request: Request): RequestContext {
  return (request as Carrier)[CONTEXT] ?? enterRequest(request, null);
}
