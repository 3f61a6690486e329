/**
 * Destructive queue operations: drain, clean, obliterate, removeJob. Each script call is
 * bounded (DEFAULTS.chunkSize jobs or the caller's count) and the loops live here, so no single
 * script blocks Redis for long. Between calls other clients may act on the queue; every call is
 * consistent on its own.
 */
import type { RedisClient } from './connection';
import { DEFAULTS } from '../../defaults';
import { QueueStateError, UnexpectedReplyError } from '../../errors';
import type { QueueKeys } from '../../queue/keys';
import { throwIfErrorCode } from '../../scripts/error-codes';
import { scriptKeys } from '../../scripts/script-keys';
import type { CleanState } from '../queue-operations';
import { checkCleanState, checkInteger, checkJobId } from '../operation-validation';
import { runScript } from './run-script';

/**
 * Most descendants one removeJob(…, removeChildren) call collects (depth first). Deeper or later
 * descendants are left in place; their parent key then points at a job that no longer exists.
 */
const MAX_REMOVED_DESCENDANTS = 10_000;

function pair(reply: unknown, command: string): [number, number] {
  if (!Array.isArray(reply) || reply.length < 2) {
    throw new UnexpectedReplyError(`${command} replied ${JSON.stringify(reply)}`);
  }
  return [Number(reply[0]), Number(reply[1])];
}

export async function drain(
  client: RedisClient,
  keys: QueueKeys,
  includeDelayed: boolean,
): Promise<number> {
  let total = 0;
  for (;;) {
    const reply = await runScript(client, 'drain', scriptKeys('drain', keys), [
      keys.base,
      includeDelayed ? '1' : '0',
      DEFAULTS.chunkSize,
    ]);
    const [removed, more] = pair(reply, 'drain');
    total += removed;
    if (more === 0) return total;
  }
}

/**
 * As bullmq's clean, `limit` bounds the entries examined (oldest first): for completed/failed
 * every examined entry qualifies, so it is also the number removed; for the other states only the
 * examined entries old enough (and not locked, not a scheduler's pending iteration) go. Each
 * script call examines at most DEFAULTS.chunkSize entries and emits its own `cleaned` event
 * (bullmq emits one per clean; here the first call always emits, later ones only when they
 * removed something, so the counts add up to the total).
 */
export async function clean(
  client: RedisClient,
  keys: QueueKeys,
  grace: number,
  limit: number,
  state: CleanState,
): Promise<string[]> {
  checkInteger('grace', grace, 0);
  checkInteger('limit', limit, 0);
  checkCleanState(state);
  const cutoff = Date.now() - grace;
  const removed: string[] = [];
  let cursor = 0;
  let examined = 0;
  for (let call = 0; ; call++) {
    const budget =
      limit === 0 ? DEFAULTS.chunkSize : Math.min(limit - examined, DEFAULTS.chunkSize);
    const reply = await runScript(
      client,
      'cleanJobsInSet',
      scriptKeys('cleanJobsInSet', keys, { state: keys.base + state }),
      [keys.base, cutoff, budget, state, cursor, call === 0 ? '1' : '0'],
    );
    if (!Array.isArray(reply) || reply.length < 4 || !Array.isArray(reply[0])) {
      throw new UnexpectedReplyError(`cleanJobsInSet replied ${JSON.stringify(reply)}`);
    }
    removed.push(...reply[0].map(String));
    cursor = Number(reply[1]);
    examined += Number(reply[2]);
    if (Number(reply[3]) === 1 || (limit > 0 && examined >= limit)) return removed;
  }
}

export async function obliterate(
  client: RedisClient,
  keys: QueueKeys,
  opts: { force: boolean; count: number },
): Promise<void> {
  checkInteger('count', opts.count, 1);
  const k = keys;
  for (;;) {
    const reply = await runScript(client, 'obliterate', scriptKeys('obliterate', k), [
      k.base,
      opts.count,
      opts.force ? '1' : '0',
    ]);
    if (reply === -1) throw new QueueStateError('Cannot obliterate non-paused queue');
    if (reply === -2) throw new QueueStateError('Cannot obliterate queue with active jobs');
    if (reply === 0) return;
    if (reply !== 1) throw new UnexpectedReplyError(`obliterate replied ${JSON.stringify(reply)}`);
  }
}

export async function removeJob(
  client: RedisClient,
  keys: QueueKeys,
  jobId: string,
  removeChildren: boolean,
): Promise<number> {
  checkJobId(jobId);
  const reply = await runScript(
    client,
    'removeJob',
    scriptKeys('removeJob', keys, { jobHash: keys.job(jobId) }),
    [jobId, removeChildren ? '1' : '0', keys.base, MAX_REMOVED_DESCENDANTS],
  );
  throwIfErrorCode(reply, jobId, 'removeJob');
  return Number(reply);
}
