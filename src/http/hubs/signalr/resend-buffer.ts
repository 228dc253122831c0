// Stateful reconnect's bookkeeping for one connection, both ways, as ASP.NET Core's MessageBuffer keeps
// it on the server and in the JS client (dotnet/aspnetcore src/SignalR/common/Shared/MessageBuffer.cs).
//
// Out: every invocation and completion written to the socket gets the next sequence id (from 1) and
// stays here, its text as written, until the client acknowledges it (Ack, type 8, "every message up
// to this id arrived"). Pings, closes, acks and sequences are not numbered. When the client comes
// back on a new socket with the same connection token, the server first writes a Sequence (type 9)
// carrying the id of the oldest unacknowledged message (or the next id, when there is none) and then
// every unacknowledged message again; the client drops the ones it had already received.
//
// In: the client numbers its own invocations the same way and resends what the server had not
// acknowledged after its own Sequence; a message whose id is not above the newest one received is a
// duplicate and is dropped. The server acknowledges what it received at most once per sweep (ASP.NET
// acks every second).

import { ackRecord, sequenceRecord } from './messages.ts';

export class ResendBuffer {
  /** Unacknowledged records, oldest first, from `head`; `sent[head]` carries `firstId`. */
  private sent: string[] = [];
  private head = 0;
  private firstId = 1;
  /** Characters of the unacknowledged records (≈ bytes: the records are JSON, mostly ASCII). */
  bytes = 0;
  /** The id the next inbound sequenced message carries; the newest one processed; the newest acked. */
  private nextReceivingId = 1;
  private latestReceivedId = 0;
  private lastAckedId = 0;

  /** An invocation or completion was written: it takes the next id. */
  written(text: string): void {
    this.sent.push(text);
    this.bytes += text.length;
  }

  /** The client received every message up to `sequenceId`. */
  acked(sequenceId: number): void {
    while (this.head < this.sent.length && this.firstId <= sequenceId) {
      this.bytes -= this.sent[this.head].length;
      this.head++;
      this.firstId++;
    }
    if (this.head === this.sent.length) {
      this.sent = [];
      this.head = 0;
    } else if (this.head > 1024 && this.head * 2 > this.sent.length) {
      this.sent = this.sent.slice(this.head);
      this.head = 0;
    }
  }

  /** What a resumed socket gets first: the Sequence record, then every unacknowledged record. */
  replay(): string[] {
    return [sequenceRecord(this.firstId), ...this.sent.slice(this.head)];
  }

  /** An inbound sequenced message arrived: whether it is new (false: a duplicate the client resent). */
  accept(): boolean {
    const id = this.nextReceivingId++;
    if (id <= this.latestReceivedId) return false;
    this.latestReceivedId = id;
    return true;
  }

  /** The client's Sequence: its next resent message carries `sequenceId`; false when that is past what arrived. */
  resetTo(sequenceId: number): boolean {
    if (sequenceId > this.nextReceivingId) return false;
    this.nextReceivingId = sequenceId;
    return true;
  }

  /** The Ack record to write when messages arrived since the last one, else null. */
  ackDue(): string | null {
    if (this.latestReceivedId <= this.lastAckedId) return null;
    this.lastAckedId = this.latestReceivedId;
    return ackRecord(this.latestReceivedId);
  }
}
