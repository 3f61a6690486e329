/**
 * Child process body for startDeploymentWorker() (deployment-worker.ts): an OxMQ Worker on a
 * Redis Cluster or behind Sentinel that completes every job after `workMs`, reporting `ready`,
 * then `completed` (job id, pid, time) for each job and `error` for each worker error, one JSON line
 * on stdout each.
 *
 * argv[2]: JSON DeploymentWorkerConfig.
 */
import { Cluster } from 'ioredis';
import { Worker, type ConnectionOptions } from 'oxmq';
import type { DeploymentWorkerConfig } from './deployment-worker';

function report(message: Record<string, unknown>): void {
  process.stdout.write(`${JSON.stringify(message)}\n`);
}

const config = JSON.parse(process.argv[2] ?? '{}') as DeploymentWorkerConfig;
const connection: ConnectionOptions =
  'clusterNodes' in config
    ? new Cluster(config.clusterNodes, { redisOptions: { maxRetriesPerRequest: null } })
    : { sentinels: config.sentinels, name: config.masterName, maxRetriesPerRequest: null };

const worker = new Worker(
  config.queueName,
  async (job) => {
    await new Promise((resolve) => setTimeout(resolve, config.workMs));
    report({ event: 'completed', jobId: job.id, pid: process.pid, at: Date.now() });
    return job.id;
  },
  {
    connection,
    clusterHashTags: 'clusterNodes' in config,
    concurrency: config.concurrency,
    drainDelay: config.drainDelay,
    lockDuration: config.lockDuration,
    stalledInterval: config.stalledInterval,
    runRetryDelay: 200,
  },
);
worker.on('error', (error: Error) => report({ event: 'error', message: error.message }));
void worker.waitUntilReady().then(() => report({ event: 'ready', pid: process.pid }));
