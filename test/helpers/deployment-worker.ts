/**
 * Worker processes on a replicated deployment (a Cluster from redis-cluster.ts, or Sentinel from
 * redis-sentinel.ts): real OxMQ Workers in child processes that complete every job and report
 * each completion, so a test can count, across processes and failovers, how often each job ran.
 */
import { spawnBundledChild, type BundledChild } from './bundled-child';
import type { RedisAddress } from './redis-node';

/** Where the workers connect: a Cluster's nodes, or the sentinels and their master's name. */
export type DeploymentTarget =
  { clusterNodes: RedisAddress[] } | { sentinels: RedisAddress[]; masterName: string };

export type DeploymentWorkerConfig = {
  queueName: string;
  workMs: number;
  concurrency: number;
  /** Seconds an idle worker blocks before fetching again. */
  drainDelay: number;
  /** Short locks let a job whose completion was lost in a failover be recovered soon. */
  lockDuration: number;
  stalledInterval: number;
} & DeploymentTarget;

export async function startDeploymentWorker(config: DeploymentWorkerConfig): Promise<BundledChild> {
  const child = await spawnBundledChild('deployment-worker.entry.ts', 'deployment worker', config);
  await child.waitForMessage((message) => message.event === 'ready', 20_000);
  return child;
}
