// The envelope every JSON response carries (spec "General rules" 3), and Response builders.
// Handlers build Responses here, so status, headers and body are decided in one place.

export interface Envelope {
  success: boolean;
  errorCode: number;
  errorMessage: string | null;
}

const JSON_HEADERS = { 'content-type': 'application/json; charset=utf-8' };

export function json(status: number, body: unknown, headers?: Record<string, string>): Response {
  return new Response(JSON.stringify(body), { status, headers: headers ? { ...JSON_HEADERS, ...headers } : JSON_HEADERS });
}

export function success(fields: Record<string, unknown> = {}): Response {
  return jsonText(200, successBody(fields));
}

/** success(fields)'s body as text, for a handler that serves one body to many readers (jsonText). */
export function successBody(fields: Record<string, unknown>): string {
  return JSON.stringify({ ...fields, success: true, errorCode: 0, errorMessage: null });
}

export function jsonText(status: number, text: string): Response {
  return new Response(text, { status, headers: JSON_HEADERS });
}

/** A spec'd error row: HTTP 200 with success false, as the gateway answers business errors. */
export function failure(errorCode: number, errorMessage: string, fields: Record<string, unknown> = {}): Response {
  return json(200, { ...fields, success: false, errorCode, errorMessage });
}

export function unauthorized(): Response {
  return json(401, { success: false, errorCode: 401, errorMessage: 'Unauthorized' });
}

export function tooManyRequests(retryAfterS: number, message = 'Too many requests', fields: Record<string, unknown> = {}): Response {
  return json(429, { ...fields, success: false, errorCode: 429, errorMessage: message }, { 'retry-after': String(retryAfterS) });
}

export function busy(retryAfterS: number, message = 'Service busy, retry later', fields: Record<string, unknown> = {}): Response {
  return json(503, { ...fields, success: false, errorCode: 503, errorMessage: message }, { 'retry-after': String(retryAfterS) });
}

export function malformedJson(): Response {
  return json(400, { success: false, errorCode: 400, errorMessage: 'Malformed JSON body' });
}

export function notFound(): Response {
  return json(404, { success: false, errorCode: 404, errorMessage: 'Not found' });
}

export function internalError(): Response {
  return json(500, { success: false, errorCode: 500, errorMessage: 'Internal server error' });
}
