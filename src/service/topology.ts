// One node or many: the parts of an instance that differ by deployment, built once by the
// composition root (services.ts) and handed to the services, which never ask which database they
// run on. Three deployments, two builders:
// - `standaloneTopology`: one node on its own SQLite file. Sessions are all its own, events stay in
//   the process, rate limits and the streaming budget count in memory, the job queue is local.
// - `sharedStoreTopology`: a node on a store shared with other processes (PostgreSQL). Rate limits,
//   the streaming day and the job queue count in the store, so they hold across nodes; as a node of
//   a cluster (`cluster`) sessions are held under leases and events travel between the nodes
//   (LISTEN/NOTIFY); a single server on PostgreSQL keeps sessions and events to itself.

import { limits } from '../config.ts';
import type { Clock } from '../lib/clock.ts';
import { LeaseStore } from '../store/leases.ts';
import { PlaygroundRunStore } from '../store/playground-runs.ts';
import type { Sql } from '../store/sql.ts';
import type { PostgresSql } from '../store/sql-postgres.ts';
import { RunQueueStore } from '../store/run-queue.ts';
import { Leased, type Ownership, SingleNode } from './cluster/ownership.ts';
import { type EventBus, LocalEventBus } from './events/bus.ts';
import { ClusterEventBus } from './events/cluster-bus.ts';
import type { ReplayEvent } from './events/types.ts';
import { LocalJobQueue } from './jobs/local-queue.ts';
import type { JobQueue } from './jobs/queue.ts';
import { SharedJobQueue } from './jobs/shared-queue.ts';
import type { QueueDeps } from './jobs/store-queue.ts';
import { memoryRateLimits, type RateLimits, sharedRateLimits } from './rate-limit.ts';
import type { StreamingBudget } from './streaming-budget.ts';

type LogError = (message: string, fields: Record<string, unknown>) => void;

export interface Topology {
  /** This node's name (claimed jobs, leases and forwarded events carry it). */
  readonly nodeId: string;
  /** Which node runs which live session: this one (one node), or the lease holder's (a cluster). */
  readonly ownership: Ownership;
  /** Committed changes for the real-time hubs: in process, or carried between the nodes. */
  readonly events: EventBus<ReplayEvent>;
  /** Where rate limiters count: this process, or the shared store. */
  readonly rateLimits: RateLimits;
  /** Replay/step's bars per user (the day in the shared store when there is one; the second per node). */
  readonly streaming: StreamingBudget;
  /** The playground's runs waiting for a runner, and what becomes of a dead node's. */
  readonly jobs: JobQueue;
  /** The store other processes share (PostgreSQL), which /health probes; null when the node's own file holds everything. */
  readonly sharedStore: Sql | null;
  /** Stops the background work of the parts (the queue's timer, the event bus's connection). */
  stop(): Promise<void>;
}

export interface TopologyDeps {
  nodeId: string;
  clock: Clock;
  logError: LogError;
}

/** One node on its own SQLite file: everything in this process. */
export function standaloneTopology(sql: Sql, d: TopologyDeps): Topology {
  const rateLimits = memoryRateLimits();
  const jobs = new LocalJobQueue(queueDeps(sql, d));
  return {
    nodeId: d.nodeId,
    ownership: new SingleNode(d.nodeId),
    events: localEvents(d.logError),
    rateLimits,
    streaming: rateLimits.streaming(d.clock),
    jobs,
    sharedStore: null,
    async stop() {
      jobs.close();
    },
  };
}

/**
 * A node on a shared PostgreSQL: limits and jobs in the store; with `cluster`, leases and events
 * between the nodes (where other nodes reach this one: `nodeUrl`, until it advertises its address).
 */
export async function sharedStoreTopology(pg: PostgresSql, cluster: { nodeUrl: string } | null, d: TopologyDeps): Promise<Topology> {
  const rateLimits = sharedRateLimits(pg);
  const jobs = new SharedJobQueue(queueDeps(pg, d));
  const bus = cluster ? new ClusterEventBus<ReplayEvent>(pg, d.nodeId, (e, context) => d.logError('cluster event bus', { context, error: String(e) })) : null;
  await bus?.start();
  const settings = cluster && { nodeId: d.nodeId, nodeUrl: cluster.nodeUrl, ttlMs: limits.sessionLeaseTtlMs, renewMs: limits.sessionLeaseRenewMs };
  return {
    nodeId: d.nodeId,
    ownership: settings ? new Leased(new LeaseStore(pg), settings, d.logError) : new SingleNode(d.nodeId),
    events: bus ?? localEvents(d.logError),
    rateLimits,
    streaming: rateLimits.streaming(d.clock),
    jobs,
    sharedStore: pg,
    async stop() {
      jobs.close();
      await bus?.stop();
    },
  };
}

function localEvents(logError: LogError): EventBus<ReplayEvent> {
  return new LocalEventBus<ReplayEvent>((e, event) => logError('event handler failed', { topic: event.topic, error: String(e) }));
}

function queueDeps(sql: Sql, d: TopologyDeps): QueueDeps {
  const records = new PlaygroundRunStore(sql);
  return { queue: new RunQueueStore(sql, records), records, nodeId: d.nodeId, clock: d.clock, logError: d.logError };
}
