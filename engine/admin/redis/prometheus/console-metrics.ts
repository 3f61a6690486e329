/**
 * The console's scrape (`GET /api/prometheus`, docs/metrics.md): every queue the console
 * discovers (engine/admin/redis/queues.ts), up to a cap, each read with one pipeline, and one
 * CLIENT LIST for all of their workers. Families are merged across queues, each sample labelled
 * `prefix` and `queue` first (bullmq's families too: two prefixes may hold the same queue name).
 */
import { isCluster, type RedisClient } from '../../../backend/redis/connection';
import { listQueues, type ListQueuesOptions, type QueueRef } from '../queues';
import { listWorkers, workersInClientList } from '../workers';
import { bullmqFamilies, oxmqQueueFamilies, type LabelledSnapshot } from './families';
import { queueSnapshotReads, type PipelineReply, type QueueSnapshot } from './queue-snapshot';
import { renderFamilies, type MetricFamily } from './text-format';
import { registerScripts } from '../../../scripts/loader';

export const CONSOLE_METRICS_DEFAULTS = {
  /** Queues described per scrape; the rest are counted in oxmq_scrape_queues_omitted. */
  maxQueues: 500,
  /** Queue pipelines in flight at once: enough to hide latency, few enough not to flood Redis. */
  concurrency: 16,
} as const;

export interface ConsoleMetricsOptions {
  maxQueues?: number;
  concurrency?: number;
  /** Discovery's scan budget (engine/admin/redis/queues.ts). */
  scan?: ListQueuesOptions;
  /** The clock ages and closed minutes are measured against (tests move it). */
  now?: () => number;
}

export interface ConsoleMetrics {
  /** The exposition text, every line ended by a line feed. */
  text: string;
  /** Queues described (oxmq_scrape_queues). */
  queues: number;
  /** Queues left out by the cap (oxmq_scrape_queues_omitted). */
  omitted: number;
  /** False when discovery ran out of its scan budget: queues may exist that were not seen. */
  discoveryComplete: boolean;
  /** Queues Redis refused a read of (e.g. a key of an unexpected type): left out, not fatal. */
  failed: { queue: QueueRef; error: string }[];
}

export async function collectConsoleMetrics(
  client: RedisClient,
  prefixes: readonly string[],
  opts: ConsoleMetricsOptions = {},
): Promise<ConsoleMetrics> {
  const maxQueues = Math.max(0, Math.floor(opts.maxQueues ?? CONSOLE_METRICS_DEFAULTS.maxQueues));
  const concurrency = Math.max(1, opts.concurrency ?? CONSOLE_METRICS_DEFAULTS.concurrency);
  const now = opts.now ?? Date.now;

  const discovered = await listQueues(client, prefixes, opts.scan);
  const chosen = discovered.queues.slice(0, maxQueues);
  const omitted = discovered.queues.length - chosen.length;

  // On a Cluster a node lists only its own clients: listWorkers asks each queue's master.
  const onCluster = isCluster(client);
  const [list, results] = await Promise.all([
    chosen.length > 0 && !onCluster ? client.client('LIST') : Promise.resolve(''),
    readAll(client, chosen, concurrency, now),
  ]);
  const snapshots: QueueSnapshot[] = [];
  const failed: ConsoleMetrics['failed'] = [];
  results.forEach((result, index) => {
    if ('snapshot' in result) snapshots.push(result.snapshot);
    else failed.push({ queue: chosen[index]!, error: result.error });
  });

  const workers = onCluster
    ? await listWorkers(client, snapshots)
    : workersInClientList(String(list), snapshots);
  const labelled: LabelledSnapshot[] = snapshots.map((snapshot, index) => ({
    snapshot,
    workers: workers[index]?.workers.length ?? 0,
    leading: [
      ['prefix', snapshot.prefix],
      ['queue', snapshot.name],
    ],
    trailing: [],
  }));
  const families: MetricFamily[] = [
    ...bullmqFamilies(labelled),
    ...oxmqQueueFamilies(labelled),
    scrapeGauge('oxmq_scrape_queues', 'Queues described in this scrape.', snapshots.length),
    scrapeGauge(
      'oxmq_scrape_queues_omitted',
      'Queues left out of this scrape by its cap on the number of queues.',
      omitted,
    ),
  ];
  return {
    text: `${renderFamilies(families)}\n`,
    queues: snapshots.length,
    omitted,
    discoveryComplete: discovered.complete,
    failed,
  };
}

function scrapeGauge(name: string, help: string, value: number): MetricFamily {
  return { name, help, type: 'gauge', samples: [{ labels: [], value }] };
}

type ReadResult = { snapshot: QueueSnapshot } | { error: string };

/** One pipeline per queue, at most `concurrency` in flight; results in the queues' order. */
async function readAll(
  client: RedisClient,
  queues: readonly QueueRef[],
  concurrency: number,
  now: () => number,
): Promise<ReadResult[]> {
  const results: ReadResult[] = new Array(queues.length);
  let next = 0;
  const lane = async () => {
    while (next < queues.length) {
      const index = next++;
      const queue = queues[index]!;
      try {
        registerScripts(client);
        const pipeline = client.pipeline();
        const reads = queueSnapshotReads(client, pipeline, queue.prefix, queue.name);
        const replies = ((await pipeline.exec()) ?? []) as PipelineReply[];
        results[index] = { snapshot: await reads.finish(replies, now()) };
      } catch (error) {
        // Redis refused a read of this queue (say WRONGTYPE on a foreign key): skip the queue.
        // Anything else (a lost connection) fails the scrape, so Prometheus sees it as down.
        if (!isReplyError(error)) throw error;
        results[index] = { error: error.message };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, queues.length) }, lane));
  return results;
}

/** An error reply from Redis (redis-errors' ReplyError, which ioredis types as `any`). */
function isReplyError(error: unknown): error is Error {
  return error instanceof Error && error.name === 'ReplyError';
}
