/**
 * What is wrong with a queue, in words: computed from what an overview has already read (counts,
 * meta, the limiter's TTL, the connected workers, failures per minute (the timing history, or
 * bullmq's metrics lists for a queue no OxMQ worker serves), the oldest waiting job's
 * timestamp, and the two bounded reads of redis/problem-signals.ts: recent stalls and OxMQ workers
 * that stopped beating).
 */

import { HEARTBEAT_INDEX_KEEP_MS } from '../worker/heartbeat';
import { PROBLEM_SIGNAL_LIMITS } from './redis/problem-signals';

export type QueueProblemKind =
  | 'no-worker'
  | 'paused'
  | 'rate-limited'
  | 'old-backlog'
  | 'failure-spike'
  | 'stalled-recently'
  | 'workers-missing-heartbeats';

/** critical: jobs will not run until someone acts; warning: they run late or fail more; info: by choice. */
export type QueueProblemSeverity = 'critical' | 'warning' | 'info';

export interface QueueProblem {
  kind: QueueProblemKind;
  severity: QueueProblemSeverity;
  /** One sentence for a human. */
  message: string;
}

export const QUEUE_PROBLEM_DEFAULTS = {
  /** A waiting job older than this makes an "old backlog". */
  oldBacklogMinutes: 10,
  /** Minutes of failures compared with the hour before them. */
  failureWindowMinutes: 15,
  /** Fewer failures than this in the window are never a spike (one failure after a quiet hour is not). */
  failureSpikeMin: 5,
} as const;

/** Minutes of failed metrics the overview reads so a spike can be told: the window plus an hour. */
export const FAILURE_SPIKE_MINUTES = QUEUE_PROBLEM_DEFAULTS.failureWindowMinutes + 60;

export interface ProblemInput {
  counts: { waiting: number; prioritized: number };
  paused: boolean;
  rateLimited: boolean;
  rateLimitTtlMs: number;
  workerCount: number;
  /** ms since epoch the oldest waiting job was created; null when nothing waits. */
  oldestWaitingAt: number | null;
  /**
   * Jobs failed for good per closed minute, newest first, and those of the minute under way;
   * null when nothing counts them (no timing history, no metrics lists).
   */
  failedMetrics: { newestFirst: readonly number[]; pending: number } | null;
  /**
   * `stalled` events of the last STALLED_WINDOW_MINUTES (redis/problem-signals.ts); absent: not
   * read.
   */
  recentStalls?: { count: number; capped: boolean };
  /** OxMQ workers that stopped beating recently (redis/problem-signals.ts); absent: not read. */
  missingWorkers?: number;
}

export interface ProblemOptions {
  now?: number;
  oldBacklogMinutes?: number;
}

const SEVERITY_ORDER: Record<QueueProblemSeverity, number> = { critical: 0, warning: 1, info: 2 };

export function compareSeverity(a: QueueProblemSeverity, b: QueueProblemSeverity): number {
  return SEVERITY_ORDER[a] - SEVERITY_ORDER[b];
}

/** The queue's problems, most severe first. */
export function queueProblems(input: ProblemInput, opts: ProblemOptions = {}): QueueProblem[] {
  const now = opts.now ?? Date.now();
  const oldMinutes = opts.oldBacklogMinutes ?? QUEUE_PROBLEM_DEFAULTS.oldBacklogMinutes;
  const waiting = input.counts.waiting + input.counts.prioritized;
  const problems: QueueProblem[] = [];

  if (waiting > 0 && input.workerCount === 0) {
    problems.push({
      kind: 'no-worker',
      severity: 'critical',
      message: `${plural(waiting, 'job waits', 'jobs wait')} but no worker is connected.`,
    });
  }
  if (input.paused) {
    problems.push({
      kind: 'paused',
      severity: 'info',
      message: 'The queue is paused: no new job starts until it is resumed.',
    });
  }
  if (input.rateLimited) {
    problems.push({
      kind: 'rate-limited',
      severity: 'info',
      message: `The rate limiter holds job starts back for ${Math.ceil(input.rateLimitTtlMs / 1000)} s more.`,
    });
  }
  if (input.oldestWaitingAt !== null) {
    const ageMinutes = Math.floor((now - input.oldestWaitingAt) / 60_000);
    if (ageMinutes >= oldMinutes) {
      problems.push({
        kind: 'old-backlog',
        severity: 'warning',
        message: `The oldest waiting job was added ${ageMinutes} min ago (over ${oldMinutes} min).`,
      });
    }
  }
  const stalls = input.recentStalls;
  if (stalls && stalls.count > 0) {
    problems.push({
      kind: 'stalled-recently',
      severity: 'warning',
      message:
        `${plural(stalls.count, 'job', 'jobs')}${stalls.capped ? ' or more' : ''} stalled in the ` +
        `last ${PROBLEM_SIGNAL_LIMITS.stalledWindowMinutes} min: a worker lost their locks ` +
        '(killed, or its event loop blocked) and they went back to wait.',
    });
  }
  if (input.missingWorkers !== undefined && input.missingWorkers > 0) {
    problems.push({
      kind: 'workers-missing-heartbeats',
      severity: 'warning',
      message:
        `${plural(input.missingWorkers, 'OxMQ worker', 'OxMQ workers')} stopped sending ` +
        `heartbeats in the last ${HEARTBEAT_INDEX_KEEP_MS / 60_000} min without closing ` +
        '(killed, its machine gone, or its event loop blocked).',
    });
  }
  const spike = failureSpike(input.failedMetrics);
  if (spike) {
    problems.push({
      kind: 'failure-spike',
      severity: 'warning',
      message:
        `${plural(spike.recent, 'job', 'jobs')} failed in the last ` +
        `${QUEUE_PROBLEM_DEFAULTS.failureWindowMinutes} min, more than in the hour before (${spike.before}).`,
    });
  }
  return problems.sort((a, b) => compareSeverity(a.severity, b.severity));
}

function failureSpike(
  metrics: ProblemInput['failedMetrics'],
): { recent: number; before: number } | null {
  if (!metrics || (metrics.newestFirst.length === 0 && metrics.pending === 0)) return null;
  const window = QUEUE_PROBLEM_DEFAULTS.failureWindowMinutes;
  // The open minute counts towards the window, so it holds `window - 1` closed minutes.
  const recent = metrics.pending + sum(metrics.newestFirst.slice(0, window - 1));
  const before = sum(metrics.newestFirst.slice(window - 1, window - 1 + 60));
  if (recent < QUEUE_PROBLEM_DEFAULTS.failureSpikeMin || recent <= before) return null;
  return { recent, before };
}

function sum(values: readonly number[]): number {
  return values.reduce((total, value) => total + value, 0);
}

function plural(n: number, one: string, many: string): string {
  return `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;
}
