/**
 * Safe repairs of the integrity checker's findings (docs/integrity.md, "Repairs"): only those
 * that cannot lose data or run a job twice, each one atomic and re-checking at repair time the
 * condition the checker reported, so a finding the queue has since moved past is skipped.
 * `multiple-states`, `attempts-exceeded`, `parent-link` (and any invariant not listed in
 * SAFE_REPAIRS) stay report-only.
 */
import { ReplyError, type Redis } from 'ioredis';
import { ValidationError } from '../../../errors';
import type { RedisClient } from '../../../backend/redis/connection';
import { QueueKeys } from '../../../queue/keys';
import type { IntegrityQueue } from './check-queue-integrity';
import { INVARIANTS, type IntegrityReport, type Invariant } from './invariants';
import { integrityServer } from './queue-node';
import {
  markStalled,
  placeFinished,
  raisePriorityCounter,
  removeDanglingId,
  trimEvents,
  type ScriptAnswer,
} from './repair-run';

/** What each repairable invariant's repair does. */
export const SAFE_REPAIRS = {
  'member-without-hash': 'remove the dangling id from the state structures',
  'active-unlocked': 'mark stalled, for the next stalled check to recover',
  'priority-counter': 'raise pc to the job’s counter',
  'events-over-cap': 'trim the events stream to its cap',
  'hash-without-state': 'put the finished job back into completed or failed',
} as const satisfies Partial<Record<Invariant, string>>;

export type RepairableInvariant = keyof typeof SAFE_REPAIRS;

export interface RepairResult {
  code: Invariant;
  /** The finding's job id; null for the queue-wide `events-over-cap`. */
  jobId: string | null;
  /** What the repair does (or would have done), with its outcome's detail when applied. */
  action: string;
  applied: boolean;
  /** Why nothing was written, when not applied. */
  skipped?: string;
}

const isRepairable = (code: string): code is RepairableInvariant =>
  Object.hasOwn(SAFE_REPAIRS, code);

function validateReport(report: IntegrityReport): void {
  const ok =
    typeof report === 'object' &&
    report !== null &&
    typeof report.samples === 'object' &&
    report.samples !== null &&
    Object.values(report.samples).every(
      (samples) => Array.isArray(samples) && samples.every((s) => typeof s === 'string' && s),
    );
  if (!ok) throw new ValidationError('repair needs an integrity report with its samples');
}

async function repairOne(
  client: Redis,
  keys: QueueKeys,
  code: RepairableInvariant,
  id: string,
): Promise<ScriptAnswer> {
  switch (code) {
    case 'member-without-hash':
      return removeDanglingId(client, keys, id);
    case 'active-unlocked':
      return markStalled(client, keys, id);
    case 'priority-counter':
      return raisePriorityCounter(client, keys, id);
    case 'events-over-cap':
      return trimEvents(client, keys);
    case 'hash-without-state':
      return placeFinished(client, keys, id);
  }
}

/**
 * Applies the safe repairs to the findings a report samples (up to MAX_SAMPLES per invariant),
 * one after another; the report-only ones come back not applied, with the reason. On a Redis
 * Cluster they run on the master that holds the hash-tagged queue's slot (queue-node.ts); a
 * queue whose keys would spread over slots is refused with a ValidationError.
 */
export async function repairIntegrityFindings(
  client: RedisClient,
  queue: IntegrityQueue,
  report: IntegrityReport,
): Promise<RepairResult[]> {
  const keys = new QueueKeys(queue.prefix, queue.name);
  validateReport(report);
  const server = await integrityServer(client, queue);
  const results: RepairResult[] = [];
  const codes = [...new Set<string>([...INVARIANTS, ...Object.keys(report.samples)])];
  for (const code of codes as Invariant[]) {
    for (const sample of report.samples[code] ?? []) {
      const jobId = code === 'events-over-cap' ? null : sample;
      if (!isRepairable(code)) {
        results.push({ code, jobId, action: 'none', applied: false, skipped: 'report-only' });
        continue;
      }
      try {
        const answer = await repairOne(server, keys, code, sample);
        results.push(
          answer.applied
            ? { code, jobId, action: `${SAFE_REPAIRS[code]}: ${answer.detail}`, applied: true }
            : { code, jobId, action: SAFE_REPAIRS[code], applied: false, skipped: answer.detail },
        );
      } catch (error) {
        // A hand-made key of another type makes Redis refuse the script in one of its checks,
        // which all come before its first write: nothing was written.
        if (!(error instanceof ReplyError)) throw error;
        results.push({
          code,
          jobId,
          action: SAFE_REPAIRS[code],
          applied: false,
          skipped: (error as Error).message,
        });
      }
    }
  }
  return results;
}
