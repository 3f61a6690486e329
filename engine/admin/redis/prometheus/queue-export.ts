/**
 * One queue's Prometheus text, as Queue.exportPrometheusMetrics answers it: first exactly what
 * bullmq 6.7.0's Queue.exportPrometheusMetrics(globalVariables) returns for the same Redis state
 * (same lines, same `, ` label separators, joined by line feeds; only the counts differ, when
 * tenant groups hold waiting or delayed jobs bullmq cannot see), then the queue's `oxmq_queue_*`
 * families (docs/metrics.md), labelled `prefix`, `queue` and the global variables.
 *
 * One round trip: the queue's reads and the CLIENT LIST that counts its workers share a pipeline.
 * This module imports nothing that imports engine/queue/queue.ts: the Redis storage, which Queue
 * loads, runs it as a chore (engine/backend/redis/queue-chores.ts).
 */
import type { RedisClient } from '../../../backend/redis/connection';
import { workersInClientList } from '../workers';
import { bullmqFamilies, oxmqQueueFamilies } from './families';
import { queueSnapshotReads, type PipelineReply } from './queue-snapshot';
import { renderFamilies, type Labels } from './text-format';
import { registerScripts } from '../../../scripts/loader';

/**
 * Like bullmq's, the text has no final line feed: add one when serving it on its own (the text
 * format wants every line ended). `globalVariables` are added to every sample, after the
 * queue's labels, as bullmq adds them; in the OxMQ families a variable named `prefix` or `queue`
 * is left out rather than repeating a label name.
 */
export async function exportQueuePrometheusMetrics(
  client: RedisClient,
  prefix: string,
  name: string,
  globalVariables?: Record<string, string>,
): Promise<string> {
  registerScripts(client);
  const pipeline = client.pipeline();
  const reads = queueSnapshotReads(client, pipeline, prefix, name);
  pipeline.client('LIST');
  const replies = ((await pipeline.exec()) ?? []) as PipelineReply[];
  const now = Date.now();
  const snapshot = await reads.finish(replies.slice(0, reads.size), now);
  const [listError, list] = replies[reads.size] ?? [new Error('no CLIENT LIST reply'), ''];
  if (listError) throw listError;
  const workers = workersInClientList(String(list), [{ prefix, name }])[0]?.workers.length ?? 0;

  const globals: Labels = Object.entries(globalVariables ?? {}).map(
    ([label, value]) => [label, String(value)] as const,
  );
  const bullmq = renderFamilies(
    bullmqFamilies([{ snapshot, workers, leading: [['queue', name]], trailing: globals }]),
  );
  const oxmq = renderFamilies(
    oxmqQueueFamilies([
      {
        snapshot,
        workers,
        leading: [
          ['prefix', prefix],
          ['queue', name],
        ],
        trailing: globals.filter(([label]) => label !== 'prefix' && label !== 'queue'),
      },
    ]),
  );
  return `${bullmq}\n${oxmq}`;
}
