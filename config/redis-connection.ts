/**
 * Connections from validated settings (config/redis-settings.ts): the one place that knows how a
 * URL, a Sentinel group or a Cluster becomes ioredis options or an ioredis client. The runner,
 * the demo and the console open every Redis connection through here.
 *
 * A single server or a Sentinel group is described by options, so each engine object may open
 * connections of its own. A Cluster is an instance (the engine takes a Cluster only as one),
 * shared by the objects given it: whoever creates it closes it, after them.
 */
import { Cluster, Redis, type ClusterOptions, type RedisOptions } from 'ioredis';
import type { HostPort } from './fields';
import { maskRedisUrl } from 'oxmq';
import type { RedisTarget } from './redis-settings';

export type RedisClient = Redis | Cluster;

/** ioredis options for a single server or the master of a Sentinel group (never a Cluster). */
export type ServerOptions = RedisOptions & { url?: string };

/** For logs and messages: where the target is, never a password. */
export function describeRedisTarget(target: RedisTarget): string {
  const list = (nodes: readonly HostPort[]) =>
    nodes.map(({ host, port }) => `${host.includes(':') ? `[${host}]` : host}:${port}`).join(',');
  switch (target.kind) {
    case 'url':
      return maskRedisUrl(target.url);
    case 'cluster':
      return `cluster ${list(target.nodes)}${target.tls ? ' (TLS)' : ''}`;
    case 'sentinel':
      return `sentinel master "${target.name}" via ${list(target.sentinels)}${target.tls ? ' (TLS)' : ''}`;
  }
}

/**
 * Options for one server or a Sentinel group, `extra` (connection name, retries, timeouts)
 * applied on top. For a URL, the URL stays a `url` field (bullmq's form the engine accepts), so
 * ioredis parses it as it would the string.
 */
export function serverOptions(
  target: Exclude<RedisTarget, { kind: 'cluster' }>,
  extra: RedisOptions = {},
): ServerOptions {
  if (target.kind === 'url') {
    return { ...extra, url: target.url, ...(target.tls ? { tls: {} } : {}) };
  }
  return {
    ...extra,
    sentinels: target.sentinels.map(({ host, port }) => ({ host, port })),
    name: target.name,
    ...credentials(target),
    ...(target.sentinelPassword === undefined ? {} : { sentinelPassword: target.sentinelPassword }),
    // TLS to the master (enableTLSForSentinelMode, with `tls`) and to the sentinels.
    ...(target.tls ? { tls: {}, enableTLSForSentinelMode: true, sentinelTLS: {} } : {}),
  };
}

/**
 * A new Cluster client: `extra` applies to the connection of every node (ClusterOptions'
 * redisOptions), with the credentials and TLS of the settings.
 */
export function openCluster(
  target: Extract<RedisTarget, { kind: 'cluster' }>,
  extra: RedisOptions = {},
  clusterOptions: ClusterOptions = {},
): Cluster {
  const { enableOfflineQueue, ...perNode } = extra;
  return new Cluster(
    target.nodes.map(({ host, port }) => ({ host, port })),
    {
      ...clusterOptions,
      // The cluster-level queue is the one commands wait in before the slots are known.
      ...(enableOfflineQueue === undefined ? {} : { enableOfflineQueue }),
      redisOptions: { ...perNode, ...credentials(target), ...(target.tls ? { tls: {} } : {}) },
      // With TLS, nodes are reached by the addresses the cluster announces, and a certificate
      // names an address rather than what a DNS lookup of it answers.
      ...(target.tls ? { dnsLookup: (address, callback) => callback(null, address) } : {}),
    },
  );
}

/** A new client for any target; the caller owns it (quit or disconnect it when done). */
export function openRedis(target: RedisTarget, extra: RedisOptions = {}): RedisClient {
  if (target.kind === 'cluster') return openCluster(target, extra);
  const { url, ...options } = serverOptions(target, extra);
  return url === undefined ? new Redis(options) : new Redis(url, options);
}

/**
 * What to give engine objects (Queue, Worker, FlowProducer) as `connection`, and how to close it
 * once they are closed: options for a server or Sentinel (each object opens its own connections),
 * one shared Cluster client otherwise.
 */
export interface EngineConnection {
  readonly connection: ServerOptions | Cluster;
  /** Closes the shared Cluster client, if one was opened; call after the objects using it. */
  close(): Promise<void>;
}

export function engineConnection(target: RedisTarget, extra: RedisOptions = {}): EngineConnection {
  if (target.kind !== 'cluster') {
    return { connection: serverOptions(target, extra), close: async () => undefined };
  }
  const cluster = openCluster(target, extra);
  // Shared by every Queue and Worker of the process, each of which listens to it (errors, ready,
  // end): many listeners are expected here, not a leak.
  cluster.setMaxListeners(0);
  return {
    connection: cluster,
    close: async () => {
      if (cluster.status === 'ready') await cluster.quit().catch(() => undefined);
      if (cluster.status !== 'end') cluster.disconnect();
    },
  };
}

function credentials(target: { username?: string; password?: string }): RedisOptions {
  return {
    ...(target.username === undefined ? {} : { username: target.username }),
    ...(target.password === undefined ? {} : { password: target.password }),
  };
}
