/**
 * The trace context stored on a parent's finished children, for the links of the parent's
 * processing span. Bounded: at most `limit` children per kind are read, and a job without
 * children costs one EXISTS. Children may live in other queues, but a child key always names
 * its own hash, whose `traceparent` / `tracestate` fields are read in one pipeline.
 */
import type { Redis } from 'ioredis';
import type { QueueKeys } from '../../keys';
import type { ChildTraceFields } from '../queue-operations';

function keysOfScan(reply: unknown): string[] {
  const items = Array.isArray(reply) && Array.isArray(reply[1]) ? (reply[1] as unknown[]) : [];
  const keys: string[] = [];
  for (let i = 0; i < items.length; i += 2) keys.push(String(items[i]));
  return keys;
}

export async function getChildTraceFields(
  client: Redis,
  keys: QueueKeys,
  jobId: string,
  limit: number,
): Promise<ChildTraceFields[]> {
  const jobKey = keys.job(jobId);
  const processed = `${jobKey}:processed`;
  const ignored = `${jobKey}:failed`;
  const failed = `${jobKey}:unsuccessful`;
  if (Number(await client.exists(processed, ignored, failed)) === 0) return [];

  const pages = await client
    .pipeline()
    .hscan(processed, 0, 'COUNT', limit)
    .hscan(ignored, 0, 'COUNT', limit)
    .zrange(failed, 0, limit - 1)
    .exec();
  const childKeys = [
    ...keysOfScan(pages?.[0]?.[1]),
    ...keysOfScan(pages?.[1]?.[1]),
    ...((pages?.[2]?.[1] as unknown[] | undefined) ?? []).map(String),
  ].slice(0, limit);
  if (childKeys.length === 0) return [];

  const reads = client.pipeline();
  for (const childKey of childKeys) reads.hmget(childKey, 'traceparent', 'tracestate');
  const replies = (await reads.exec()) ?? [];
  const fields: ChildTraceFields[] = [];
  replies.forEach(([error, reply], index) => {
    const [traceparent, tracestate] = (error ? [] : (reply as (string | null)[])) ?? [];
    if (traceparent) {
      fields.push({
        childKey: childKeys[index]!,
        traceparent,
        tracestate: tracestate ?? undefined,
      });
    }
  });
  return fields;
}
