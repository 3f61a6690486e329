/**
 * One round's decisions for one prefix, from the queue overviews and the open problems kept in
 * Redis (state.ts): which problems started (sent once), which cleared (sent once, and only when
 * their start was), what the state becomes. Pure: the notifier reads, calls this, commits the
 * state under its lease, and only then sends.
 *
 * - Notified: the overview's no-worker, old-backlog, failure-spike, stalled-recently and
 *   workers-missing-heartbeats problems, and "paused too long": a queue seen paused for
 *   `pausedAfterMs` (a pause is by choice, so `paused` itself is never notified). Rate limits are
 *   by choice too and never notified.
 * - A muted queue is left as it is: nothing starts, nothing clears, nothing is sent; once it is
 *   unmuted the next round sends whatever changed meanwhile.
 * - A queue the round did not look at (discovery's budget ran out) keeps its state; a queue that
 *   is gone (discovery saw every queue) clears its problems.
 */
import type { QueueOverview } from 'oxmq/admin';
import {
  formatDuration,
  isNotifyKind,
  problemId,
  queueLink,
  type Notification,
  type NotifyKind,
} from './messages';
import { openField, type OpenProblem } from './state';

export interface RoundInput {
  prefix: string;
  now: number;
  overviews: readonly QueueOverview[];
  /** True when `overviews` are every queue of the prefix. */
  complete: boolean;
  open: ReadonlyMap<string, OpenProblem>;
  muted: ReadonlySet<string>;
  pausedAfterMs: number;
  consoleUrl: string;
  /** The console's redaction of free text. */
  redact: (text: string) => string;
}

export interface RoundDecision {
  set: Map<string, OpenProblem>;
  remove: string[];
  notifications: Notification[];
}

interface Current {
  queue: string;
  kind: NotifyKind;
  severity: OpenProblem['severity'];
  message: string;
}

function pausedMessage(pausedForMs: number, pausedAfterMs: number): string {
  return (
    `The queue has been paused for ${formatDuration(pausedForMs)} (notified after ` +
    `${formatDuration(pausedAfterMs)}): no new job starts until it is resumed.`
  );
}

export function decideRound(input: RoundInput): RoundDecision {
  const { prefix, now } = input;
  const current = new Map<string, Current>();
  const seen = new Set<string>();
  for (const overview of input.overviews) {
    seen.add(overview.name);
    if (input.muted.has(overview.name)) continue;
    for (const problem of overview.problems) {
      if (!isNotifyKind(problem.kind)) continue;
      const { kind, severity, message } = problem;
      current.set(openField(overview.name, kind), {
        queue: overview.name,
        kind,
        severity,
        message,
      });
    }
    if (overview.paused) {
      current.set(openField(overview.name, 'paused-too-long'), {
        queue: overview.name,
        kind: 'paused-too-long',
        severity: 'warning',
        message: '',
      });
    }
  }

  const decision: RoundDecision = { set: new Map(), remove: [], notifications: [] };
  const notification = (
    problem: OpenProblem,
    event: 'problem.started' | 'problem.cleared',
    message: string,
  ): Notification => ({
    event,
    id: problemId(prefix, problem.queue, problem.kind, problem.startedAt),
    prefix,
    queue: problem.queue,
    kind: problem.kind,
    severity: problem.severity,
    message,
    startedAt: problem.startedAt,
    clearedAt: event === 'problem.cleared' ? now : null,
    link: queueLink(input.consoleUrl, prefix, problem.queue),
  });

  for (const [field, found] of current) {
    const known = input.open.get(field);
    let problem: OpenProblem = known ?? {
      queue: found.queue,
      kind: found.kind,
      severity: found.severity,
      message: input.redact(found.message),
      startedAt: now,
      sent: false,
    };
    const due = found.kind !== 'paused-too-long' || now - problem.startedAt >= input.pausedAfterMs;
    if (!problem.sent && due) {
      const message =
        found.kind === 'paused-too-long'
          ? pausedMessage(now - problem.startedAt, input.pausedAfterMs)
          : input.redact(found.message);
      problem = { ...problem, severity: found.severity, message, sent: true };
      decision.notifications.push(notification(problem, 'problem.started', message));
      decision.set.set(field, problem);
    } else if (!known) {
      decision.set.set(field, problem);
    }
  }

  for (const [field, problem] of input.open) {
    if (current.has(field) || input.muted.has(problem.queue)) continue;
    const gone = !seen.has(problem.queue);
    if (gone && !input.complete) continue;
    decision.remove.push(field);
    if (!problem.sent) continue;
    const lasted = formatDuration(now - problem.startedAt);
    const message = gone
      ? `The queue no longer exists; the problem had lasted ${lasted}. It started with: ${problem.message}`
      : `Cleared after ${lasted}. It started with: ${problem.message}`;
    decision.notifications.push(notification(problem, 'problem.cleared', message));
  }
  return decision;
}
