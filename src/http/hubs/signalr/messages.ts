// The SignalR hub messages we read and write (dotnet/aspnetcore src/SignalR/docs/specs/HubProtocol.md),
// JSON protocol versions 0 to 2 (ASP.NET Core 8's JsonHubProtocol: `IsVersionSupported` is
// `version <= 2`; version 2 adds Ack and Sequence for stateful reconnect), and the error texts
// ASP.NET Core sends for each failure (DefaultHubDispatcher, HubConnectionContext.HandshakeAsync,
// JsonHubProtocol, MessageBuffer), so a client sees the same strings it would see from the gateway.

import { record } from './records.ts';

export const MessageType = {
  Invocation: 1,
  StreamItem: 2,
  Completion: 3,
  StreamInvocation: 4,
  CancelInvocation: 5,
  Ping: 6,
  Close: 7,
  Ack: 8,
  Sequence: 9,
} as const;

/** The JSON hub protocol's version in ASP.NET Core 8 and later; every version up to it is spoken. */
export const JSON_PROTOCOL_VERSION = 2;

/** Error texts, one per failure. Detailed texts (exception type and message) only for the client's own protocol errors. */
export const hubErrors = {
  // With the JSON protocol an unknown target fails argument binding (GetParameterTypes throws
  // HubException "Method does not exist."), so ASP.NET answers this, not "Unknown hub method '…'".
  unknownMethod: (target: string) => `Failed to invoke '${target}' due to an error on the server. HubException: Method does not exist.`,
  methodFailed: (target: string) => `An unexpected error occurred invoking '${target}' on the server.`,
  streamingInvocation: (target: string) =>
    `The client attempted to invoke the non-streaming '${target}' method with a streaming invocation.`,
  clientStreams: (target: string, count: number) =>
    `An unexpected error occurred invoking '${target}' on the server. HubException: Client sent ${count} stream(s), Hub method expects 0.`,
  protocolNotSupported: (protocol: string) => `The protocol '${protocol}' is not supported.`,
  versionNotSupported: (protocol: string, version: number) =>
    `The server does not support version ${version} of the '${protocol}' protocol.`,
  handshakeCanceled: 'Handshake was canceled.',
  handshakeFailed: 'An unexpected error occurred during connection handshake.',
  invalidMessage: (detail: string) => `Connection closed with an error. InvalidDataException: ${detail}`,
  messageTooLarge: (bytesMax: number) =>
    `Connection closed with an error. InvalidDataException: The maximum message size of ${bytesMax}B was exceeded.`,
  tooManyInvocations: (max: number) => `Connection closed with an error. More than ${max} invocations are waiting.`,
  clientTimeout: (ms: number) => `Connection closed: no message from the client within ${ms} ms.`,
  slowConsumer: 'Connection closed: the client is not reading fast enough.',
  tokenExpired: 'Connection closed: the access token expired.',
  tokenRevoked: 'Connection closed: the access token is no longer valid.',
  // Stateful reconnect (ASP.NET's MessageBuffer.ShouldProcessMessage throws this InvalidOperationException).
  sequenceTooLarge: "Connection closed with an error. InvalidOperationException: Sequence ID greater than amount of messages we've received.",
  resendBufferFull: (bytesMax: number) =>
    `Connection closed: the client did not acknowledge ${bytesMax} bytes of messages (stateful reconnect's buffer is full).`,
  // Per-user and per-address caps (transport.ts).
  connectionsPerUser: (max: number) => `Connection refused: at most ${max} hub connections per user may be open at once.`,
  negotiationsPerAddress: (max: number, windowS: number) =>
    `Negotiation refused: at most ${max} negotiations without a token per client address every ${windowS} s.`,
  negotiatedIdsFull: 'Negotiation refused: too many negotiated connections are waiting to connect; retry shortly.',
} as const;

/**
 * An inbound message. Invocations, stream invocations and the ignored stream items, completions and
 * cancels are the "HubInvocationMessage"s stateful reconnect numbers (`sequenced`); pings, closes,
 * acks and sequences are not.
 */
export type Inbound =
  | { kind: 'invocation'; target: string; invocationId: string | null; args: unknown[]; streamCount: number }
  | { kind: 'stream_invocation'; target: string; invocationId: string | null }
  | { kind: 'ping' }
  | { kind: 'close' }
  | { kind: 'ack' | 'sequence'; sequenceId: number }
  | { kind: 'ignored'; sequenced: boolean }
  | { kind: 'invalid'; detail: string };

/** Whether a message counts in stateful reconnect's sequence (ASP.NET: `is HubInvocationMessage`). */
export function isSequenced(m: Inbound): boolean {
  return m.kind === 'invocation' || m.kind === 'stream_invocation' || (m.kind === 'ignored' && m.sequenced);
}

/**
 * One inbound record. Completions, stream items, cancels and unknown types are ignored, as ASP.NET
 * ignores what it did not ask for ("old clients can ignore them"); a record that is not a message
 * at all is invalid and closes the connection.
 */
export function parseInbound(text: string): Inbound {
  let m: unknown;
  try {
    m = JSON.parse(text);
  } catch {
    return { kind: 'invalid', detail: 'Error reading JSON.' };
  }
  if (typeof m !== 'object' || m === null || Array.isArray(m)) {
    return { kind: 'invalid', detail: 'Unexpected JSON Token Type. Expected a JSON Object.' };
  }
  const msg = m as Record<string, unknown>;
  if (typeof msg.type !== 'number') return { kind: 'invalid', detail: "Missing required property 'type'." };
  switch (msg.type) {
    case MessageType.Invocation:
    case MessageType.StreamInvocation:
      return parseInvocation(msg);
    case MessageType.Ping:
      return { kind: 'ping' };
    case MessageType.Close:
      return { kind: 'close' };
    case MessageType.Ack:
    case MessageType.Sequence:
      // JsonHubProtocol reads `sequenceId` as an Int64 and refuses the message without it.
      if (!Number.isSafeInteger(msg.sequenceId)) return { kind: 'invalid', detail: "Missing required property 'sequenceId'." };
      return { kind: msg.type === MessageType.Ack ? 'ack' : 'sequence', sequenceId: msg.sequenceId as number };
    case MessageType.StreamItem:
    case MessageType.Completion:
    case MessageType.CancelInvocation:
      return { kind: 'ignored', sequenced: true };
    default:
      return { kind: 'ignored', sequenced: false };
  }
}

function parseInvocation(msg: Record<string, unknown>): Inbound {
  if (msg.invocationId !== undefined && typeof msg.invocationId !== 'string') {
    return { kind: 'invalid', detail: "Expected 'invocationId' to be of type String." };
  }
  if (typeof msg.target !== 'string') return { kind: 'invalid', detail: "Missing required property 'target'." };
  if (!Array.isArray(msg.arguments)) return { kind: 'invalid', detail: "Missing required property 'arguments'." };
  // An empty id is no id (ASP.NET: string.IsNullOrEmpty), so no completion is owed.
  const invocationId = msg.invocationId ? msg.invocationId : null;
  if (msg.type === MessageType.StreamInvocation) return { kind: 'stream_invocation', target: msg.target, invocationId };
  const streamCount = Array.isArray(msg.streamIds) ? msg.streamIds.length : 0;
  return { kind: 'invocation', target: msg.target, invocationId, args: msg.arguments, streamCount };
}

export type Handshake = { ok: true; version: number } | { ok: false; error: string };

const INT32_MIN = -2147483648;
const INT32_TOP = 2147483647;

/**
 * The handshake request `{"protocol":"json","version":n}`: JSON, any version up to 2, as ASP.NET's
 * `version <= Version` (signalrcore sends 0, most clients 1, stateful-reconnect clients 2). The
 * version is read as an Int32 there, so a fraction or a number past it fails the handshake.
 */
export function parseHandshake(text: string): Handshake {
  let m: unknown;
  try {
    m = JSON.parse(text);
  } catch {
    return { ok: false, error: hubErrors.handshakeFailed };
  }
  const h = m as Record<string, unknown> | null;
  if (typeof h !== 'object' || h === null || typeof h.protocol !== 'string' || typeof h.version !== 'number') {
    return { ok: false, error: hubErrors.handshakeFailed };
  }
  if (!Number.isInteger(h.version) || h.version < INT32_MIN || h.version > INT32_TOP) return { ok: false, error: hubErrors.handshakeFailed };
  if (h.protocol !== 'json') return { ok: false, error: hubErrors.protocolNotSupported(h.protocol) };
  if (h.version > JSON_PROTOCOL_VERSION) return { ok: false, error: hubErrors.versionNotSupported(h.protocol, h.version) };
  return { ok: true, version: h.version };
}

export const HANDSHAKE_OK = record({});
export const PING = record({ type: MessageType.Ping });

export const handshakeError = (error: string) => record({ error });

// One event is usually sent to every subscriber with the same arguments array: it is serialized
// once, whatever was sent in between (hub.ts: the array must not change between those sends).
const serialized = new WeakMap<readonly unknown[], { target: string; text: string }>();

export function invocationRecord(target: string, args: readonly unknown[]): string {
  const hit = serialized.get(args);
  if (hit !== undefined && hit.target === target) return hit.text;
  const text = record({ type: MessageType.Invocation, target, arguments: args });
  serialized.set(args, { target, text });
  return text;
}

/** A completion: never both `error` and `result` (hub methods return nothing). */
export function completionRecord(invocationId: string, error?: string): string {
  return error === undefined
    ? record({ type: MessageType.Completion, invocationId })
    : record({ type: MessageType.Completion, invocationId, error });
}

/** Stateful reconnect: the last client message received (Ack), or the id the next resent message carries (Sequence). */
export const ackRecord = (sequenceId: number) => record({ type: MessageType.Ack, sequenceId });
export const sequenceRecord = (sequenceId: number) => record({ type: MessageType.Sequence, sequenceId });

export function closeRecord(error?: string, allowReconnect?: boolean): string {
  const m: { type: number; error?: string; allowReconnect?: boolean } = { type: MessageType.Close };
  if (error !== undefined) m.error = error;
  if (allowReconnect) m.allowReconnect = true;
  return record(m);
}
