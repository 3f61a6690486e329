/**
 * The one server the checker talks to for a queue. On a single server that is the client itself.
 * On a Redis Cluster a queue's keys share a hash tag, so they all live on the master that holds
 * that slot; the checker's key scan (SCAN is per node) and its pipelines must go to that master,
 * not to whichever node ioredis would pick for a keyless command. A queue whose keys would spread
 * over several slots has no such master and is refused, as the engine refuses it everywhere else
 * (engine/backend/redis/cluster-slots.ts).
 */
import type { Cluster, Redis } from 'ioredis';
import { assertClusterSafeQueue } from '../../../backend/redis/cluster-slots';
import { isCluster, type RedisClient } from '../../../backend/redis/connection';
import { QueueKeys } from '../../../queue/keys';
import { keySlot } from '../cluster-reads';

function masterServing(cluster: Cluster, slot: number): Redis | undefined {
  const address = cluster.slots[slot]?.[0];
  if (!address) return undefined;
  return cluster
    .nodes('master')
    .find((node) => `${node.options.host}:${node.options.port}` === address);
}

export async function integrityServer(
  client: RedisClient,
  queue: { prefix: string; name: string },
): Promise<Redis> {
  if (!isCluster(client)) return client;
  const keys = new QueueKeys(queue.prefix, queue.name);
  assertClusterSafeQueue(client, keys);
  const slot = keySlot(keys.meta);
  // The slot map fills once the Cluster has connected; a keyed read waits for that.
  if (!masterServing(client, slot)) await client.exists(keys.meta);
  const server = masterServing(client, slot);
  if (!server) throw new Error(`no master of the cluster serves slot ${slot} of ${keys.queueKey}`);
  return server;
}
