/**
 * "All N matching" bulk operations: retry, promote or remove every job in one
 * state, or only those matching a search filter (the search's own JobFilter), in chunks, with
 * progress and cancellation.
 *
 * Design choice: the operation's state lives in a Redis hash `oxmq:bulk:<id>` (with a TTL), but
 * the chunks are driven by the caller, one request per chunk (`runBulkChunk`). Nothing runs in
 * the background of the web server: a chunk is bounded work inside one request, it is role-
 * checked and audited like any mutation, a closed tab simply stops the operation, and several
 * server processes need no coordination beyond the hash. Cancel flips `status`, and every chunk
 * reads it first, so a cancel takes effect before the next chunk.
 *
 * The filter is a search's JobFilter or an error group's signature
 * (engine/admin/error-group-filter.ts). A filtered operation scans the state like a search: each
 * chunk examines the next bounded slice at `cursor` (kept in the hash) and acts only on the
 * matches. Jobs it acts on leave the state, so the cursor only advances past the jobs that stay
 * (non-matches and skips); progress is `examined` of `total`, with `done` the jobs acted on.
 */
import { randomBytes } from 'node:crypto';
import { refusingOutOfMemory } from '../../backend/redis/out-of-memory';
import type { RedisClient } from '../../backend/redis/connection';
import type { Job } from '../../job/job';
import type { Queue } from '../../queue/queue';
import { bulkFilterMatcher, type BulkFilter } from '../error-group-filter';
import { BULK_ACTION_STATES, type BulkAction } from '../bulk-states';
import type { QueueCountState } from './queues';
import { queueHandle } from '../queue-handle';
import { DEFAULT_REDACTION, type RedactionRules } from '../redaction';

export const BULK_LIMITS = {
  defaultChunk: 100,
  maxChunk: 500,
  /** How long a finished or abandoned operation's record is kept. */
  ttlSeconds: 24 * 60 * 60,
} as const;

export const BULK_ID_PATTERN = /^[0-9a-f]{24}$/;

export type BulkStatus = 'running' | 'done' | 'cancelled';

export interface BulkOperation {
  id: string;
  prefix: string;
  name: string;
  action: BulkAction;
  state: QueueCountState;
  /** Only jobs matching this act; null for every job in the state. */
  filter: BulkFilter | null;
  /** Jobs in the state when the operation was created (the progress bar's 100%). */
  total: number;
  /** Jobs looked at so far (done + skipped + non-matching). */
  examined: number;
  /** Jobs acted on. */
  done: number;
  /** Matching jobs that could not be acted on (locked by a worker, moved meanwhile). */
  skipped: number;
  /** Offset into the state's list (oldest first) where the next chunk starts. */
  cursor: number;
  status: BulkStatus;
  createdBy: string;
  createdAt: number;
  updatedAt: number;
}

export const bulkKey = (id: string) => `oxmq:bulk:${id}`;

export class BulkActionStateError extends Error {
  override readonly name = 'BulkActionStateError';
  readonly code = 'INVALID_BULK_STATE';
}

export { BULK_ACTION_STATES, BULK_ACTIONS, type BulkAction } from '../bulk-states';

export async function createBulkOp(
  client: RedisClient,
  input: {
    prefix: string;
    name: string;
    action: BulkAction;
    state: QueueCountState;
    filter?: BulkFilter | null;
    actor: string;
  },
): Promise<BulkOperation> {
  if (!BULK_ACTION_STATES[input.action].includes(input.state)) {
    throw new BulkActionStateError(`${input.action} does not apply to ${input.state} jobs`);
  }
  const queue = queueHandle(client, input.prefix, input.name);
  const total = (await queue.getJobCounts(input.state))[input.state] ?? 0;
  const now = Date.now();
  const op: BulkOperation = {
    id: randomBytes(12).toString('hex'),
    prefix: input.prefix,
    name: input.name,
    action: input.action,
    state: input.state,
    filter: input.filter ?? null,
    total,
    examined: 0,
    done: 0,
    skipped: 0,
    cursor: 0,
    status: total === 0 ? 'done' : 'running',
    createdBy: input.actor,
    createdAt: now,
    updatedAt: now,
  };
  const key = bulkKey(op.id);
  // At maxmemory Redis refuses the MULTI (EXECABORT): raised as RedisOutOfMemoryError.
  await refusingOutOfMemory(
    client.multi().hset(key, serialise(op)).expire(key, BULK_LIMITS.ttlSeconds).exec(),
  );
  return op;
}

export async function getBulkOp(client: RedisClient, id: string): Promise<BulkOperation | null> {
  // A fixed, small hash (the fields of BulkOperation): HGETALL is bounded here.
  const raw = await client.hgetall(bulkKey(id));
  return raw.id ? parse(raw) : null;
}

export async function cancelBulkOp(client: RedisClient, id: string): Promise<BulkOperation | null> {
  const op = await getBulkOp(client, id);
  if (!op) return null;
  if (op.status === 'running') {
    await client.hset(bulkKey(id), { status: 'cancelled', updatedAt: Date.now() });
    return { ...op, status: 'cancelled', updatedAt: Date.now() };
  }
  return op;
}

/**
 * Acts on the next chunk of jobs; a no-op for an operation that is done or cancelled. A filter
 * matches the redacted view of each job, as the search does (`redaction`: the console's rules),
 * so how many jobs a filter acted on says nothing about a redacted value.
 */
export async function runBulkChunk(
  client: RedisClient,
  id: string,
  chunk: number = BULK_LIMITS.defaultChunk,
  redaction: RedactionRules = DEFAULT_REDACTION,
): Promise<BulkOperation | null> {
  const op = await getBulkOp(client, id);
  if (!op || op.status !== 'running') return op;
  const size = Math.max(1, Math.min(chunk, BULK_LIMITS.maxChunk));
  const queue = queueHandle(client, op.prefix, op.name);
  // Never more than `total` jobs: new arrivals are not "matching". Oldest first, so jobs that
  // arrive meanwhile append behind the cursor's slice instead of shifting it.
  const take = Math.min(size, op.total - op.examined);
  const jobs =
    take > 0 ? await queue.getJobs([op.state], op.cursor, op.cursor + take - 1, true) : [];
  const matches = op.filter ? bulkFilterMatcher(op.filter, redaction) : () => true;
  let done = 0;
  let skipped = 0;
  let stayed = 0;
  for (const job of jobs) {
    if (!matches(job)) stayed += 1;
    else if (await actOn(queue, job, op.action, op.state)) done += 1;
    else {
      skipped += 1;
      stayed += 1;
    }
  }
  const key = bulkKey(id);
  // An empty slice means the list ended (or shrank under us); `total` caps the rest.
  const finished = jobs.length === 0 || op.examined + jobs.length >= op.total;
  // Re-read status in the same transaction: a cancel that landed mid-chunk must stay.
  const [, , , , , statusReply] =
    (await refusingOutOfMemory(
      client
        .multi()
        .hincrby(key, 'done', done)
        .hincrby(key, 'skipped', skipped)
        .hincrby(key, 'examined', jobs.length)
        .hincrby(key, 'cursor', stayed)
        .hset(key, 'updatedAt', Date.now())
        .hget(key, 'status')
        .exec(),
    )) ?? [];
  if (finished && statusReply?.[1] === 'running') await client.hset(key, 'status', 'done');
  return getBulkOp(client, id);
}

/** One job; false when it could not be acted on. Shared with selection actions. */
export async function actOn(
  queue: Queue,
  job: Job,
  action: BulkAction,
  state: string,
): Promise<boolean> {
  try {
    if (action === 'retry') await job.retry(state === 'completed' ? 'completed' : 'failed');
    else if (action === 'promote') await job.promote();
    else return (await queue.remove(job.id)) === 1;
    return true;
  } catch {
    // The job changed state or is locked: count it as skipped, keep going.
    return false;
  }
}

function serialise(op: BulkOperation): Record<string, string> {
  return Object.fromEntries(
    Object.entries(op).map(([key, value]) => [
      key,
      key === 'filter' ? JSON.stringify(value) : String(value),
    ]),
  );
}

function parseFilter(raw: string | undefined): BulkFilter | null {
  if (!raw) return null;
  try {
    const value = JSON.parse(raw) as BulkFilter | null;
    return value && typeof value.mode === 'string' && typeof value.query === 'string'
      ? value
      : null;
  } catch {
    return null;
  }
}

function parse(raw: Record<string, string>): BulkOperation {
  return {
    id: raw.id ?? '',
    prefix: raw.prefix ?? '',
    name: raw.name ?? '',
    action: (raw.action ?? 'retry') as BulkAction,
    state: (raw.state ?? 'failed') as QueueCountState,
    filter: parseFilter(raw.filter),
    total: Number(raw.total ?? 0),
    examined: Number(raw.examined ?? 0),
    done: Number(raw.done ?? 0),
    skipped: Number(raw.skipped ?? 0),
    cursor: Number(raw.cursor ?? 0),
    status: (raw.status ?? 'done') as BulkStatus,
    createdBy: raw.createdBy ?? '',
    createdAt: Number(raw.createdAt ?? 0),
    updatedAt: Number(raw.updatedAt ?? 0),
  };
}
