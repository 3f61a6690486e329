/**
 * Check-and-repair walks (docs/integrity.md, "Repairs"): one budgeted checker call, then the
 * safe repairs of what it sampled. When a step repaired something, the next step walks the same
 * stretch again: a report samples at most MAX_SAMPLES ids per invariant (the repaired ids no
 * longer show, so the next ones are sampled), and a dangling id removed from a list moves the
 * offsets the cursor counts in. A step that repaired nothing moves on with the checker's cursor.
 */
import type { RedisClient } from '../../../backend/redis/connection';
import { ValidationError } from '../../../errors';
import {
  checkQueueIntegrity,
  type IntegrityOptions,
  type IntegrityQueue,
} from './check-queue-integrity';
import { decodeCursor, encodeCursor, START } from './cursor';
import type { IntegrityReport } from './invariants';
import { repairIntegrityFindings, type RepairResult } from './repair';

export interface RepairStep {
  /** The checker's report of this step, as found before its repairs. */
  report: IntegrityReport;
  repairs: RepairResult[];
  /** Where the next step starts; undefined when the walk is done. */
  cursor?: string;
}

/** Walks of one stretch in a row after which the walk moves on (a queue broken as fast as it is repaired). */
const MAX_REWALKS = 100;
const START_CURSOR = encodeCursor(START);

/** A malformed cursor or budget is refused with a ValidationError before any Redis call. */
export function validateWalkOptions(options: IntegrityOptions): void {
  try {
    decodeCursor(options.cursor);
  } catch (error) {
    throw new ValidationError((error as Error).message);
  }
  const { budget } = options;
  if (budget !== undefined && !(Number.isSafeInteger(budget) && budget > 0)) {
    throw new ValidationError('integrity budget must be a positive integer');
  }
}

export async function repairQueueIntegrityStep(
  client: RedisClient,
  queue: IntegrityQueue,
  options: IntegrityOptions = {},
): Promise<RepairStep> {
  validateWalkOptions(options);
  const report = await checkQueueIntegrity(client, queue, options);
  const repairs = await repairIntegrityFindings(client, queue, report);
  const again = repairs.some((repair) => repair.applied);
  return { report, repairs, cursor: again ? (options.cursor ?? START_CURSOR) : report.cursor };
}

/**
 * Walks the whole queue, repairing as it goes; `onRepair` sees each repair as it is made. A
 * report-only finding met again on a repeated stretch is listed once.
 */
export async function repairQueueIntegrityToEnd(
  client: RedisClient,
  queue: IntegrityQueue,
  options: Omit<IntegrityOptions, 'cursor'> & { onRepair?: (repair: RepairResult) => void } = {},
): Promise<RepairResult[]> {
  const all: RepairResult[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  let rewalks = 0;
  do {
    const step = await repairQueueIntegrityStep(client, queue, { budget: options.budget, cursor });
    for (const repair of step.repairs) {
      const key = `${repair.code}\u0000${repair.jobId}\u0000${repair.applied}`;
      if (!repair.applied && seen.has(key)) continue;
      seen.add(key);
      all.push(repair);
      options.onRepair?.(repair);
    }
    rewalks =
      step.cursor !== undefined && step.cursor === (cursor ?? START_CURSOR) ? rewalks + 1 : 0;
    cursor = rewalks > MAX_REWALKS ? step.report.cursor : step.cursor;
  } while (cursor !== undefined);
  return all;
}
