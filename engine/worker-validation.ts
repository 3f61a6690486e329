import { ValidationError } from './errors';
import type { WorkerOptions } from './worker-options';

function positive(name: string, value: unknown, integer = false): void {
  if (value === undefined) return;
  if (
    typeof value !== 'number' ||
    !Number.isFinite(value) ||
    value <= 0 ||
    (integer && !Number.isInteger(value))
  ) {
    throw new ValidationError(`${name} must be a positive ${integer ? 'integer' : 'number'}`);
  }
}

/** Rejects worker options that would make the worker misbehave rather than fail loudly. */
export function validateWorkerOptions(opts: WorkerOptions): void {
  if (!opts || opts.connection === undefined)
    throw new ValidationError('Worker needs a connection option');
  positive('concurrency', opts.concurrency, true);
  positive('lockDuration', opts.lockDuration);
  positive('lockRenewTime', opts.lockRenewTime);
  positive('stalledInterval', opts.stalledInterval);
  positive('drainDelay', opts.drainDelay);
  positive('maximumRateLimitDelay', opts.maximumRateLimitDelay);
  if (
    opts.maxStalledCount !== undefined &&
    !(Number.isInteger(opts.maxStalledCount) && opts.maxStalledCount >= 0)
  ) {
    throw new ValidationError('maxStalledCount must be a non-negative integer');
  }
  if (
    opts.lockRenewTime !== undefined &&
    opts.lockDuration !== undefined &&
    opts.lockRenewTime >= opts.lockDuration
  ) {
    throw new ValidationError('lockRenewTime must be shorter than lockDuration');
  }
  if (opts.limiter !== undefined) {
    positive('limiter.max', opts.limiter.max, true);
    positive('limiter.duration', opts.limiter.duration);
    if (opts.limiter.max === undefined || opts.limiter.duration === undefined) {
      throw new ValidationError('limiter needs max and duration');
    }
  }
  if (opts.name !== undefined && (typeof opts.name !== 'string' || opts.name.length === 0)) {
    throw new ValidationError('name must be a non-empty string');
  }
  if (opts.useWorkerThreads !== undefined && typeof opts.useWorkerThreads !== 'boolean') {
    throw new ValidationError('useWorkerThreads must be a boolean');
  }
  if (opts.metrics !== undefined)
    positive('metrics.maxDataPoints', opts.metrics.maxDataPoints, true);
}
