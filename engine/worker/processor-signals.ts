/**
 * What an error thrown by a processor asks of the worker. bullmq recognises its signals by class
 * name or by message, so a signal from another copy of either library counts too.
 */
import { UnmovedJobError } from '../errors';
import { SPAN_EVENT, type JobOutcome } from '../telemetry/semconv';

export type ProcessorSignal =
  /** The processor says it moved the job itself (delayed, wait, waiting-children). */
  | { kind: 'self-moved'; errorName: string; move: string; outcome: [JobOutcome, string] }
  /** A DelayedError carrying its move: the worker postpones the job until `until`. */
  | { kind: 'delay'; until: number }
  /** Rate limited: the job goes back to wait, no attempt used. */
  | { kind: 'rate-limit' }
  /** Anything else: a failed attempt. */
  | { kind: 'failure' };

const SELF_MOVES: {
  name: string;
  message: string;
  move: string;
  outcome: [JobOutcome, string];
}[] = [
  {
    name: 'DelayedError',
    message: 'bullmq:movedToDelayed',
    move: 'job.moveToDelayed(timestamp, token)',
    outcome: ['delayed', SPAN_EVENT.delayed],
  },
  {
    name: 'WaitingError',
    message: 'bullmq:movedToWait',
    move: 'job.moveToWait(token)',
    outcome: ['moved-to-wait', SPAN_EVENT.movedToWait],
  },
  {
    name: 'WaitingChildrenError',
    message: 'bullmq:movedToWaitingChildren',
    move: 'job.moveToWaitingChildren(token)',
    outcome: ['waiting-children', SPAN_EVENT.waitingChildren],
  },
];

export function classifyThrown(error: Error): ProcessorSignal {
  const until = (error as { until?: unknown }).until;
  if (error.name === 'DelayedError' && typeof until === 'number') return { kind: 'delay', until };
  const self = SELF_MOVES.find(
    (entry) => entry.name === error.name || entry.message === error.message,
  );
  if (self) {
    return { kind: 'self-moved', errorName: self.name, move: self.move, outcome: self.outcome };
  }
  if (error.message === 'bullmq:rateLimitExceeded' || error.name === 'RateLimitError') {
    return { kind: 'rate-limit' };
  }
  return { kind: 'failure' };
}

/** The failure a self-move signal becomes when the job was not moved first. */
export function unmovedSignalError(signal: { errorName: string; move: string }): Error {
  return new UnmovedJobError(
    `${signal.errorName} thrown but the job was not moved: call ${signal.move} before throwing it` +
      (signal.errorName === 'DelayedError' ? ', or throw new DelayedError({ delay })' : ''),
  );
}
