/**
 * The queue integrity checker ("fsck"), read-only: walks a queue's state structures and then its
 * keys in bounded windows, `budget` ids and keys per call, and returns a cursor to resume from
 * (docs/integrity.md). Each call's report counts only what that call found; add the reports of a
 * walk together (mergeReports) for the queue's totals, or let checkQueueIntegrityToEnd do it.
 * On a Redis Cluster it reads from the master that holds the queue's slot (queue-node.ts).
 */
import type { Redis } from 'ioredis';
import type { RedisClient } from '../../../backend/redis/connection';
import { ValidationError } from '../../../errors';
import { QueueKeys } from '../../../queue/keys';
import { decodeCursor, encodeCursor, type WalkPosition } from './cursor';
import { checkEventsCap } from './events-cap';
import { emptyReport, mergeReports, type IntegrityReport } from './invariants';
import { scanStep } from './key-scan';
import { integrityServer } from './queue-node';
import { INTEGRITY_LIMITS } from './limits';
import { STATE_ORDER } from './states';
import { walkWindow } from './state-walk';

export interface IntegrityQueue {
  prefix: string;
  name: string;
}

export interface IntegrityOptions {
  /** The cursor of the previous call's report. */
  cursor?: string;
  /** Ids and keys to examine in this call (at least one window's worth is always done). */
  budget?: number;
}

// Phase 0 checks the events stream; phases 1..STATE_ORDER.length walk the states; then the scan.
const SCAN_PHASE = STATE_ORDER.length + 1;
const DONE = SCAN_PHASE + 1;

/** One bounded step from `at`; returns the work done and moves `at` on. */
async function step(
  client: Redis,
  base: string,
  report: IntegrityReport,
  at: WalkPosition,
  size: number,
): Promise<number> {
  const next = (phase: number) => Object.assign(at, { phase, a: 0, b: 0, scan: '0' });
  if (at.phase === 0) {
    await checkEventsCap(client, base, report);
    next(1);
    return 1;
  }
  if (at.phase === SCAN_PHASE) {
    const { cursor, work } = await scanStep(client, base, report, at.scan, size);
    if (cursor === '0') next(DONE);
    else at.scan = cursor;
    return work;
  }
  const state = STATE_ORDER[at.phase - 1]!;
  if (state === 'group') {
    const [gid] = await client.zrange(`${base}groups:known`, at.a, at.a);
    if (gid === undefined) {
      next(at.phase + 1);
      return 1;
    }
    const read = await walkWindow(client, base, report, state, at.b, size, gid);
    if (read < size) Object.assign(at, { a: at.a + 1, b: 0 });
    else at.b += read;
    return read + 1;
  }
  const read = await walkWindow(client, base, report, state, at.a, size);
  if (read < size) next(at.phase + 1);
  else at.a += read;
  return Math.max(read, 1);
}

export async function checkQueueIntegrity(
  connection: RedisClient,
  queue: IntegrityQueue,
  options: IntegrityOptions = {},
): Promise<IntegrityReport> {
  const { base } = new QueueKeys(queue.prefix, queue.name);
  const budget = options.budget ?? INTEGRITY_LIMITS.budget;
  if (!Number.isSafeInteger(budget) || budget < 1) {
    throw new ValidationError(`integrity budget must be a positive integer, got ${String(budget)}`);
  }
  const client = await integrityServer(connection, queue);
  const at = decodeCursor(options.cursor);
  const report = emptyReport();
  while (at.phase < DONE && report.scanned < budget) {
    const size = Math.max(1, Math.min(INTEGRITY_LIMITS.window, budget - report.scanned));
    report.scanned += await step(client, base, report, at, size);
  }
  report.cursor = at.phase < DONE ? encodeCursor(at) : undefined;
  return report;
}

/** Runs the walk to its end, one budgeted call after another; `onStep` sees each call's report. */
export async function checkQueueIntegrityToEnd(
  client: RedisClient,
  queue: IntegrityQueue,
  options: Omit<IntegrityOptions, 'cursor'> & { onStep?: (report: IntegrityReport) => void } = {},
): Promise<IntegrityReport> {
  let total: IntegrityReport | undefined;
  let cursor: string | undefined;
  do {
    const part = await checkQueueIntegrity(client, queue, { budget: options.budget, cursor });
    options.onStep?.(part);
    total = total ? mergeReports(total, part) : part;
    cursor = part.cursor;
  } while (cursor !== undefined);
  return total;
}
