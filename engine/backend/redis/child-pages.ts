/**
 * A parent's children, read page by page from its four child collections (docs/redis-keys.md):
 * the reads are queued on a CommandBatch so that a whole level of a tree costs one round trip.
 * Flow reads (flow-storage.ts) and the console's flow graph (engine/admin) build on it.
 */
import { UnexpectedReplyError, ValidationError } from '../../errors';
import type { CommandBatch } from './command-batch';

/**
 * Where a child sits in its parent, in bullmq's getDependencies vocabulary: `processed`
 * (completed, `:processed` hash), `unprocessed` (pending, `:dependencies` set), `failed`
 * (failed with failParentOnFailure, `:unsuccessful` zset) and `ignored` (failed with
 * ignoreDependencyOnFailure / continueParentOnFailure, `:failed` hash).
 */
export type ChildStatus = 'processed' | 'unprocessed' | 'failed' | 'ignored';

/** The order children are listed in, which is bullmq's getFlow order. */
const CHILD_STATUSES: readonly ChildStatus[] = ['processed', 'unprocessed', 'failed', 'ignored'];

const COLLECTION: Record<ChildStatus, { suffix: string; read: 'hscan' | 'sscan' | 'zrange' }> = {
  processed: { suffix: ':processed', read: 'hscan' },
  unprocessed: { suffix: ':dependencies', read: 'sscan' },
  failed: { suffix: ':unsuccessful', read: 'zrange' },
  ignored: { suffix: ':failed', read: 'hscan' },
};

/** The key of one child collection of a parent job. */
export function childCollectionKey(parentKey: string, status: ChildStatus): string {
  return parentKey + COLLECTION[status].suffix;
}

interface ChildEntry {
  key: string;
  status: ChildStatus;
}

/**
 * A position in a parent's children: which collection (`phase`, an index into CHILD_STATUSES),
 * and within it the Redis SCAN cursor (`null` once the scan is exhausted) or, for the zset, the
 * rank to continue from; `skip` entries of what a scan from `scan` returns were already handed
 * out; `carry` holds entries a scan returned beyond the page, handed out first next time.
 */
export interface ChildCursor {
  phase: number;
  scan: string | null;
  skip: number;
  carry: string[];
}

export const CHILDREN_START: ChildCursor = Object.freeze({
  phase: 0,
  scan: '0',
  skip: 0,
  carry: [],
}) as ChildCursor;

/**
 * Most entries a cursor carries. A scan overshoots its COUNT by the rest of one hash bucket, a
 * few entries; only a small collection stored as a listpack returns everything at once, and
 * there re-scanning with `skip` is cheap (at most 128 entries by Redis's defaults).
 */
const MAX_CARRY = 16;

export interface ChildPage {
  children: ChildEntry[];
  /** Where the next page starts; undefined once every collection is exhausted. */
  next?: ChildCursor;
}

/**
 * Queues the reads for one page of at most `count` children of `parentKey` from `cursor`: the
 * collection the cursor is in, and the following ones from their start (each read bounded by
 * `count`, so a page costs one round trip whichever collection it ends in). The returned
 * decoder takes the batch's replies and a `limit` ≤ count (a caller may need fewer than it
 * planned for), and returns the children in bullmq's order with the cursor after the last one.
 */
export function planChildPage(
  batch: CommandBatch,
  parentKey: string,
  cursor: ChildCursor,
  count: number,
): (replies: unknown[], limit?: number) => ChildPage {
  const phases: PhasePlan[] = [];
  for (let phase = cursor.phase; phase < CHILD_STATUSES.length; phase++) {
    const state = phase === cursor.phase ? cursor : { ...CHILDREN_START, phase };
    phases.push(planPhase(batch, parentKey, state, count));
  }
  return (replies, limit = count) => {
    const children: ChildEntry[] = [];
    for (const plan of phases) {
      const need = Math.min(limit, count) - children.length;
      if (need <= 0) return { children, next: plan.state };
      const { keys, next } = plan.take(replies, need);
      for (const key of keys) children.push({ key, status: plan.status });
      if (next) return { children, next };
    }
    return { children };
  };
}

interface PhasePlan {
  status: ChildStatus;
  state: ChildCursor;
  take(replies: unknown[], need: number): { keys: string[]; next?: ChildCursor };
}

function planPhase(
  batch: CommandBatch,
  parentKey: string,
  state: ChildCursor,
  count: number,
): PhasePlan {
  const status = CHILD_STATUSES[state.phase];
  if (status === undefined) throw new ValidationError('children cursor is out of range');
  const { read } = COLLECTION[status];
  const key = childCollectionKey(parentKey, status);

  if (read === 'zrange') {
    // The zset is listed by rank (bullmq reads ZRANGE 0..count-1, oldest failure first).
    const offset = Number(state.scan ?? 0);
    const index = batch.add('zrange', key, offset, offset + count - 1);
    return {
      status,
      state,
      take(replies, need) {
        const members = stringArray(replies[index]);
        const keys = members.slice(0, need);
        const more = members.length > keys.length || members.length === count;
        return more ? { keys, next: { ...state, scan: String(offset + keys.length) } } : { keys };
      },
    };
  }

  const fromCarry = Math.min(state.carry.length, count);
  const scanNeed = count - fromCarry;
  const index =
    scanNeed > 0 && state.scan !== null
      ? batch.add(read, key, state.scan, 'COUNT', state.skip + scanNeed)
      : -1;
  return {
    status,
    state,
    take(replies, need) {
      const keys = state.carry.slice(0, need);
      if (keys.length === need) {
        const carry = state.carry.slice(need);
        const more = carry.length > 0 || state.scan !== null;
        return more ? { keys, next: { ...state, carry } } : { keys };
      }
      if (state.scan === null) return { keys };
      const [next, entries] = scanReply(replies[index], read === 'hscan');
      const exhausted = next === '0';
      const want = need - keys.length;
      if (entries.length <= state.skip) {
        // Everything this scan returned went out on earlier pages.
        const skip = state.skip - entries.length;
        return exhausted ? { keys } : { keys, next: { ...state, scan: next, skip, carry: [] } };
      }
      keys.push(...entries.slice(state.skip, state.skip + want));
      const rest = entries.slice(state.skip + want);
      if (rest.length === 0) {
        return exhausted ? { keys } : { keys, next: { ...state, scan: next, skip: 0, carry: [] } };
      }
      if (rest.length <= MAX_CARRY) {
        return { keys, next: { ...state, scan: exhausted ? null : next, skip: 0, carry: rest } };
      }
      // A scan of a small collection returns all of it: scan it again and skip further.
      return { keys, next: { ...state, skip: state.skip + want, carry: [] } };
    },
  };
}

function stringArray(reply: unknown): string[] {
  if (!Array.isArray(reply)) throw new UnexpectedReplyError(`expected an array, got ${reply}`);
  return reply.map(String);
}

/** A SCAN reply: the next cursor and the members (for HSCAN, the fields only). */
function scanReply(reply: unknown, pairs: boolean): [string, string[]] {
  if (!Array.isArray(reply) || reply.length !== 2)
    throw new UnexpectedReplyError(`unexpected SCAN reply ${JSON.stringify(reply)}`);
  const flat = stringArray(reply[1]);
  return [String(reply[0]), pairs ? flat.filter((_, i) => i % 2 === 0) : flat];
}

// ---- cursors as strings ----------------------------------------------------------------------

/** An opaque, URL-safe form of a children cursor, for callers that hand it back later. */
export function encodeChildCursor(cursor: ChildCursor): string {
  const body: [number, string | null, number, string[]?] = [cursor.phase, cursor.scan, cursor.skip];
  if (cursor.carry.length > 0) body.push(cursor.carry);
  return Buffer.from(JSON.stringify(body)).toString('base64url');
}

export function decodeChildCursor(text: string | undefined): ChildCursor {
  if (text === undefined || text === '') return CHILDREN_START;
  let body: unknown;
  try {
    body = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    throw new ValidationError('malformed children cursor');
  }
  if (!Array.isArray(body) || body.length < 3 || body.length > 4)
    throw new ValidationError('malformed children cursor');
  const [phase, scan, skip, carry = []] = body as unknown[];
  const valid =
    Number.isInteger(phase) &&
    (phase as number) >= 0 &&
    (phase as number) < CHILD_STATUSES.length &&
    (scan === null || (typeof scan === 'string' && /^\d+$/.test(scan))) &&
    Number.isInteger(skip) &&
    (skip as number) >= 0 &&
    Array.isArray(carry) &&
    carry.length <= MAX_CARRY &&
    carry.every((entry) => typeof entry === 'string');
  if (!valid) throw new ValidationError('malformed children cursor');
  return {
    phase: phase as number,
    scan: scan as string | null,
    skip: skip as number,
    carry: carry as string[],
  };
}
