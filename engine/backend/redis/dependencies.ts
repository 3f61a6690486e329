/**
 * A job's children on Redis (docs/redis-keys.md): the four records a parent keeps
 * (`:processed`, `:dependencies`, `:failed`, `:unsuccessful`), parking a running job until its
 * children finish, and detaching one child. Reads of several records run in one MULTI, so they
 * see one moment (a child never shows up both pending and processed). Every key of a job shares
 * the job key's prefix: on a cluster that prefix carries a hash tag, as for every other script.
 */
import type { ChainableCommander } from 'ioredis';
import type { RedisClient } from './connection';
import { UnexpectedReplyError, ValidationError } from '../../errors';
import type { QueueKeys } from '../../queue/keys';
import { throwIfErrorCode } from '../../scripts/error-codes';
import { scriptKeys } from '../../scripts/script-keys';
import type {
  DependencyKind,
  DependencyPageRequest,
  RawDependencies,
  RawDependencyPages,
} from '../queue-operations';
import { checkInteger, checkJobId } from '../operation-validation';
import { readAllAtomically } from './atomic-reads';
import { runScript } from './run-script';

const KINDS: readonly DependencyKind[] = ['processed', 'unprocessed', 'ignored', 'failed'];

/** The Redis key holding one kind of a parent's record of its children. */
function recordKey(keys: QueueKeys, jobId: string, kind: DependencyKind): string {
  const suffix = {
    processed: 'processed',
    unprocessed: 'dependencies',
    ignored: 'failed',
    failed: 'unsuccessful',
  }[kind];
  return `${keys.job(jobId)}:${suffix}`;
}

function checkKinds(kinds: readonly string[]): asserts kinds is DependencyKind[] {
  for (const kind of kinds) {
    if (!KINDS.includes(kind as DependencyKind)) {
      throw new ValidationError(`Unknown kind of dependency "${String(kind)}"`);
    }
  }
}

/** Runs a pipeline and returns its replies, throwing the first command error. */
async function execAll(pipeline: ChainableCommander): Promise<unknown[]> {
  const replies = (await pipeline.exec()) ?? [];
  return replies.map(([error, value]) => {
    if (error) throw error;
    return value;
  });
}

function pairs(flat: unknown): [string, string][] {
  const out: [string, string][] = [];
  if (!Array.isArray(flat)) return out;
  for (let i = 0; i + 1 < flat.length; i += 2) out.push([String(flat[i]), String(flat[i + 1])]);
  return out;
}

function asRecord(reply: unknown): Record<string, string> {
  if (reply === null || typeof reply !== 'object' || Array.isArray(reply)) return {};
  return Object.fromEntries(
    Object.entries(reply as Record<string, unknown>).map(([k, v]) => [k, String(v)]),
  );
}

/** A SCAN-family reply: [cursor, items]. */
function scanReply(reply: unknown): { next: number; items: unknown[] } {
  if (!Array.isArray(reply) || reply.length !== 2 || !Array.isArray(reply[1])) {
    throw new UnexpectedReplyError(`SCAN replied ${JSON.stringify(reply)}`);
  }
  return { next: Number(reply[0]), items: reply[1] as unknown[] };
}

export async function getProcessedChildren(
  client: RedisClient,
  keys: QueueKeys,
  jobId: string,
): Promise<Record<string, string>> {
  checkJobId(jobId);
  return asRecord(await client.hgetall(recordKey(keys, jobId, 'processed')));
}

export async function getIgnoredChildrenFailures(
  client: RedisClient,
  keys: QueueKeys,
  jobId: string,
): Promise<Record<string, string>> {
  checkJobId(jobId);
  return asRecord(await client.hgetall(recordKey(keys, jobId, 'ignored')));
}

export async function getDependencies(
  client: RedisClient,
  keys: QueueKeys,
  jobId: string,
): Promise<RawDependencies> {
  checkJobId(jobId);
  // One moment (a child moving from pending to processed is listed once), also at maxmemory.
  const [processed, unprocessed, ignored, failed] = await readAllAtomically(client, keys.base, [
    ['hgetall', recordKey(keys, jobId, 'processed')],
    ['smembers', recordKey(keys, jobId, 'unprocessed')],
    ['hgetall', recordKey(keys, jobId, 'ignored')],
    ['zrange', recordKey(keys, jobId, 'failed'), 0, -1],
  ]);
  return {
    processed: pairs(processed),
    unprocessed: (unprocessed as unknown[]).map(String),
    ignored: pairs(ignored),
    failed: (failed as unknown[]).map(String),
  };
}

/**
 * One page of each requested kind. Sets and hashes are read with SSCAN / HSCAN and their COUNT,
 * so Redis does a bounded amount of work per call (COUNT is a hint: a page may hold a few more
 * entries, and a small hash or set stored compactly comes back whole); the failed zset is read
 * by offset, exactly `count` at most. `next` is 0 once a kind has been read to its end.
 */
export async function getDependencyPages(
  client: RedisClient,
  keys: QueueKeys,
  jobId: string,
  requests: Partial<Record<DependencyKind, DependencyPageRequest>>,
): Promise<RawDependencyPages> {
  checkJobId(jobId);
  const kinds = KINDS.filter((kind) => requests[kind] !== undefined);
  for (const kind of kinds) {
    const request = requests[kind]!;
    checkInteger(`${kind}.cursor`, request.cursor, 0);
    checkInteger(`${kind}.count`, request.count, 1);
  }
  if (kinds.length === 0) return {};

  // Pages resume by cursor across calls anyway, so one call's pages need no common moment.
  const pipeline = client.pipeline();
  for (const kind of kinds) {
    const { cursor, count } = requests[kind]!;
    const key = recordKey(keys, jobId, kind);
    if (kind === 'unprocessed') pipeline.sscan(key, cursor, 'COUNT', count);
    else if (kind === 'failed') pipeline.zrange(key, cursor, cursor + count - 1).zcard(key);
    else pipeline.hscan(key, cursor, 'COUNT', count);
  }
  const replies = await execAll(pipeline);

  const pages: RawDependencyPages = {};
  let at = 0;
  for (const kind of kinds) {
    if (kind === 'failed') {
      const { cursor, count } = requests.failed!;
      const members = (replies[at++] as unknown[]).map(String);
      const total = Number(replies[at++]);
      pages.failed = { next: cursor + count < total ? cursor + count : 0, keys: members };
      continue;
    }
    const { next, items } = scanReply(replies[at++]);
    if (kind === 'unprocessed') pages.unprocessed = { next, keys: items.map(String) };
    else pages[kind] = { next, entries: pairs(items) };
  }
  return pages;
}

export async function getDependencyCounts(
  client: RedisClient,
  keys: QueueKeys,
  jobId: string,
  kinds: DependencyKind[],
): Promise<number[]> {
  checkJobId(jobId);
  checkKinds(kinds);
  if (kinds.length === 0) return [];
  // Counts, as getJobCounts reads them: a pipeline (a MULTI is refused at maxmemory).
  const pipeline = client.pipeline();
  for (const kind of kinds) {
    const key = recordKey(keys, jobId, kind);
    if (kind === 'unprocessed') pipeline.scard(key);
    else if (kind === 'failed') pipeline.zcard(key);
    else pipeline.hlen(key);
  }
  return (await execAll(pipeline)).map(Number);
}

export async function moveToWaitingChildren(
  client: RedisClient,
  keys: QueueKeys,
  jobId: string,
  token: string,
  childKey?: string,
): Promise<boolean> {
  checkJobId(jobId);
  if (typeof token !== 'string' || token.length === 0) {
    throw new ValidationError('moveToWaitingChildren needs the lock token of the running job');
  }
  if (childKey !== undefined && (typeof childKey !== 'string' || !childKey.includes(':'))) {
    throw new ValidationError('child must be { id, queue: "<prefix>:<queueName>" }');
  }
  const jobKey = keys.job(jobId);
  const reply = await runScript(
    client,
    'moveToWaitingChildren',
    scriptKeys('moveToWaitingChildren', keys, {
      jobHash: jobKey,
      jobDependencies: `${jobKey}:dependencies`,
      jobUnsuccessful: `${jobKey}:unsuccessful`,
    }),
    [token, childKey ?? '', Date.now(), jobId],
  );
  throwIfErrorCode(reply, jobId, 'moveToWaitingChildren');
  return moveReply(reply, 'moveToWaitingChildren');
}

export async function removeChildDependency(
  client: RedisClient,
  keys: QueueKeys,
  jobId: string,
  parentKey?: string,
): Promise<boolean> {
  checkJobId(jobId);
  if (parentKey !== undefined && (typeof parentKey !== 'string' || !parentKey.includes(':'))) {
    throw new ValidationError('parentKey must be a full job key "<prefix>:<queue>:<id>"');
  }
  const reply = await runScript(
    client,
    'removeChildDependency',
    [keys.job(jobId)],
    [parentKey ?? ''],
  );
  throwIfErrorCode(reply, jobId, 'removeChildDependency');
  return moveReply(reply, 'removeChildDependency');
}

/** 0: done; 1: nothing to do. */
function moveReply(reply: unknown, command: string): boolean {
  if (reply === 0) return true;
  if (reply === 1) return false;
  throw new UnexpectedReplyError(`${command} replied ${JSON.stringify(reply)}`);
}
