import { checkStorageOption } from '../backend/storage';
import { ValidationError } from '../errors';
import type { WorkerOptions } from './options';

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

/** Every option a Worker reads (bullmq 6.7.0's names, plus OxMQ's own). */
const WORKER_OPTIONS = new Set([
  'connection',
  'prefix',
  'telemetry',
  'name',
  'autorun',
  'concurrency',
  'limiter',
  'metrics',
  'timingHistory',
  'maximumRateLimitDelay',
  'maxStartedAttempts',
  'maxStalledCount',
  'stalledInterval',
  'removeOnComplete',
  'removeOnFail',
  'skipStalledCheck',
  'skipLockRenewal',
  'heartbeatInterval',
  'drainDelay',
  'lockDuration',
  'lockRenewTime',
  'runRetryDelay',
  'settings',
  'useWorkerThreads',
  'workerForkOptions',
  'workerThreadsOptions',
  // OxMQ: the storage (engine/backend/storage.ts), hash-tagged names for Redis Cluster.
  'storage',
  'clusterHashTags',
  // bullmq options with nothing to do here: a Worker always has its own blocking connection,
  // OxMQ checks no Redis version and never queues commands behind a readiness wait.
  'blockingConnection',
  'skipVersionCheck',
  'skipWaitingForReady',
]);

function checkTimingHistory(value: WorkerOptions['timingHistory']): void {
  if (value === undefined || typeof value === 'boolean') return;
  const keys = ['flushInterval', 'minutesKept', 'hoursKept'] as const;
  onlyKeys('timingHistory', value, keys);
  for (const key of keys) positive(`timingHistory.${key}`, value[key]);
}

function onlyKeys(name: string, value: unknown, keys: readonly string[]): void {
  if (value === undefined) return;
  if (value === null || typeof value !== 'object') {
    throw new ValidationError(`${name} must be an object`);
  }
  for (const key of Object.keys(value)) {
    if (!keys.includes(key)) {
      throw new ValidationError(`Unknown worker option ${name}.${key} (known: ${keys.join(', ')})`);
    }
  }
}

/**
 * Rejects worker options that would make the worker misbehave rather than fail loudly, and
 * options it does not know (a typo would otherwise be silently ignored). `extraKeys`: the
 * options of a subclass (BatchWorker).
 */
export function validateWorkerOptions(
  opts: WorkerOptions,
  extraKeys: readonly string[] = [],
): void {
  // The Redis storage (the default) refuses a missing `connection` when the worker connects.
  if (!opts) throw new ValidationError('Worker needs a connection option');
  for (const key of Object.keys(opts)) {
    if (!WORKER_OPTIONS.has(key) && !extraKeys.includes(key)) {
      throw new ValidationError(`Unknown worker option ${key}`);
    }
  }
  for (const key of ['workerForkOptions', 'workerThreadsOptions'] as const) {
    const value = opts[key];
    if (value !== undefined && (value === null || typeof value !== 'object')) {
      throw new ValidationError(`${key} must be an object`);
    }
  }
  checkStorageOption(opts.storage);
  onlyKeys('settings', opts.settings, ['backoffStrategy']);
  onlyKeys('metrics', opts.metrics, ['maxDataPoints']);
  checkTimingHistory(opts.timingHistory);
  onlyKeys('limiter', opts.limiter, ['max', 'duration']);
  positive('runRetryDelay', opts.runRetryDelay);
  positive('concurrency', opts.concurrency, true);
  positive('lockDuration', opts.lockDuration);
  positive('lockRenewTime', opts.lockRenewTime);
  positive('stalledInterval', opts.stalledInterval);
  positive('drainDelay', opts.drainDelay);
  positive('maximumRateLimitDelay', opts.maximumRateLimitDelay);
  if (
    opts.heartbeatInterval !== undefined &&
    !(
      typeof opts.heartbeatInterval === 'number' &&
      Number.isFinite(opts.heartbeatInterval) &&
      opts.heartbeatInterval >= 0
    )
  ) {
    throw new ValidationError('heartbeatInterval must be a number of ms (0: no heartbeat)');
  }
  if (
    opts.maxStalledCount !== undefined &&
    !(Number.isInteger(opts.maxStalledCount) && opts.maxStalledCount >= 0)
  ) {
    throw new ValidationError('maxStalledCount must be a non-negative integer');
  }
  if (
    opts.maxStartedAttempts !== undefined &&
    !(Number.isInteger(opts.maxStartedAttempts) && opts.maxStartedAttempts >= 0)
  ) {
    throw new ValidationError('maxStartedAttempts must be a non-negative integer');
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
