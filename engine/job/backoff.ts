import type { BackoffOptions } from './options';

/** A custom backoff: the delay in ms before the next attempt, or -1 for "do not retry". */
export type BackoffStrategy = (
  attemptsMade: number,
  type: string,
  error: Error,
  job: unknown,
) => number | Promise<number>;

export class UnknownBackoffStrategyError extends Error {
  constructor(type: string) {
    super(`Unknown backoff strategy "${type}": pass settings.backoffStrategy to the Worker`);
    this.name = 'UnknownBackoffStrategyError';
  }
}

/** Uniform in [delay * (1 - jitter), delay]. */
function withJitter(delay: number, jitter: number | undefined): number {
  if (!jitter) return delay;
  return Math.round(delay * (1 - jitter) + Math.random() * delay * jitter);
}

/**
 * Delay before the next attempt, after `attemptsMade` attempts have failed (1 after the first).
 * fixed: `delay` every time. exponential: delay, 2·delay, 4·delay ... capped at `maxDelay` when
 * given (OxMQ's extension). Other types go to the worker's strategy.
 */
export async function computeBackoffDelay(
  backoff: BackoffOptions | undefined,
  attemptsMade: number,
  error: Error,
  job: unknown,
  strategy?: BackoffStrategy,
): Promise<number> {
  if (!backoff) return 0;
  const base = backoff.delay ?? 0;
  switch (backoff.type) {
    case 'fixed':
      return withJitter(base, backoff.jitter);
    case 'exponential': {
      let delay = Math.round(2 ** (attemptsMade - 1) * base);
      if (backoff.maxDelay !== undefined) delay = Math.min(delay, backoff.maxDelay);
      return withJitter(delay, backoff.jitter);
    }
    default:
      if (!strategy) throw new UnknownBackoffStrategyError(backoff.type);
      return strategy(attemptsMade, backoff.type, error, job);
  }
}
