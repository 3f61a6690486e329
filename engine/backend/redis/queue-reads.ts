/** Read-only queue operations: counts, listings, a job's state, logs, meta. */
import type { RedisClient } from './connection';
import { UnexpectedReplyError } from '../../errors';
import type { QueueKeys } from '../../queue/keys';
import { scriptKeys } from '../../scripts/script-keys';
import type { RawJobHash } from '../queue-backend';
import type { JobState, JobStateReply } from '../queue-operations';
import { checkIndexRange, checkJobId, checkJobStates } from '../operation-validation';
import { readAtomically } from './atomic-reads';
import { registerScripts } from '../../scripts/loader';
import { parseGroupedCounts, queueGroupedCounts } from './grouped-counts';
import { flatToRecord, runScript } from './run-script';

/** Extra windows getJobsInStates reads per state to replace ids without a hash (bullmq: 5). */
const MAX_BACKFILL_WINDOWS = 5;

/** The Redis key suffix of a state: `waiting` is bullmq's public name of the wait list. */
export function stateKeyName(state: JobState): string {
  return state === 'waiting' ? 'wait' : state;
}

const LIST_STATES = new Set(['wait', 'paused', 'active']);

/** States whose jobs may also sit in tenant-group keys (docs/redis-keys.md, Groups). */
const GROUPED_STATES = new Set(['wait', 'delayed']);

function isLegacyMarker(id: unknown): boolean {
  return typeof id === 'string' && id.startsWith('0:');
}

/**
 * Counts per state. `waiting` and `delayed` include the tenant groups' jobs (their lines and
 * `Q group-delayed`), read by one script in the same pipeline: every job is in one state.
 */
export async function getCounts(
  client: RedisClient,
  keys: QueueKeys,
  types: JobState[],
): Promise<Record<string, number>> {
  checkJobStates(types);
  const withGroups = types.some((type) => GROUPED_STATES.has(stateKeyName(type)));
  if (withGroups) registerScripts(client);
  const pipeline = client.pipeline();
  for (const type of types) {
    const key = keys.base + stateKeyName(type);
    if (LIST_STATES.has(stateKeyName(type))) {
      pipeline.llen(key);
      // bullmq 4/early 5 left "0:<delay>" markers at the tail of wait; they are not jobs.
      pipeline.lindex(key, -1);
    } else {
      pipeline.zcard(key);
    }
  }
  if (withGroups) queueGroupedCounts(pipeline, keys);
  const replies = (await pipeline.exec()) ?? [];
  const values = replies.map(([error, value]) => {
    if (error) throw error;
    return value;
  });
  const grouped = withGroups ? parseGroupedCounts(values[values.length - 1]) : undefined;
  const counts: Record<string, number> = {};
  let at = 0;
  for (const type of types) {
    const state = stateKeyName(type);
    let count = Number(values[at++]);
    if (LIST_STATES.has(state)) {
      if (isLegacyMarker(values[at++])) count -= 1;
    }
    if (grouped && state === 'wait') count += grouped.waiting;
    if (grouped && state === 'delayed') count += grouped.delayed;
    counts[type] = count;
  }
  return counts;
}

export async function getJobsInStates(
  client: RedisClient,
  keys: QueueKeys,
  types: JobState[],
  start: number,
  end: number,
  asc: boolean,
): Promise<{ id: string; hash: RawJobHash }[]> {
  checkJobStates(types);
  checkIndexRange(start, end);
  const states = [...new Set(types.map(stateKeyName))];
  if (states.length === 0) return [];
  const reply = await runScript(client, 'getJobsInStates', scriptKeys('getJobsInStates', keys), [
    start,
    end,
    asc ? '1' : '0',
    MAX_BACKFILL_WINDOWS,
    'jobs',
    ...states,
  ]);
  if (!Array.isArray(reply))
    throw new UnexpectedReplyError(`getJobsInStates replied ${String(reply)}`);
  const jobs: { id: string; hash: RawJobHash }[] = [];
  for (let i = 0; i + 1 < reply.length; i += 2) {
    jobs.push({ id: String(reply[i]), hash: flatToRecord(reply[i + 1]) });
  }
  return jobs;
}

const STATE_REPLIES: ReadonlySet<string> = new Set<JobStateReply>([
  'completed',
  'failed',
  'delayed',
  'prioritized',
  'active',
  'waiting',
  'waiting-children',
  'unknown',
]);

export async function getState(
  client: RedisClient,
  keys: QueueKeys,
  jobId: string,
): Promise<JobStateReply> {
  checkJobId(jobId);
  const reply = await runScript(client, 'getJobState', scriptKeys('getJobState', keys), [jobId]);
  const state = String(reply);
  if (!STATE_REPLIES.has(state)) throw new UnexpectedReplyError(`getJobState replied ${state}`);
  return state as JobStateReply;
}

/** Logs are RPUSHed, so the oldest line is at the head: ascending reads from the head. */
export async function getLogs(
  client: RedisClient,
  keys: QueueKeys,
  jobId: string,
  start: number,
  end: number,
  asc: boolean,
): Promise<{ logs: string[]; count: number }> {
  checkJobId(jobId);
  checkIndexRange(start, end);
  const key = keys.jobLogs(jobId);
  // The page and the count of one moment, readable at maxmemory
  // (engine/backend/redis/atomic-reads.ts).
  const replies = await readAtomically(client, keys.base, [
    asc ? ['lrange', key, start, end] : ['lrange', key, -(end + 1), -(start + 1)],
    ['llen', key],
  ]);
  const [[rangeError, range] = [], [countError, count] = []] = replies;
  if (rangeError) throw rangeError;
  if (countError) throw countError;
  const logs = (range as string[]) ?? [];
  return { logs: asc ? logs : logs.reverse(), count: Number(count) };
}

export function getMeta(client: RedisClient, keys: QueueKeys): Promise<Record<string, string>> {
  return client.hgetall(keys.meta);
}
