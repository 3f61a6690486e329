/**
 * Flat spellings of three options, accepted on input and rewritten to the options Redis and
 * bullmq know before anything is validated or stored:
 *
 * - `groupKey: g`          → `group: { id: g }`
 * - `deduplicationId: d`   → `deduplication: { id: d }` (a window until the job finishes)
 * - `debounceDuration: ms` → debounce mode: `deduplication: { id, ttl: ms, extend: true,
 *   replace: true }` and `delay: ms` unless a delay is given. Each new job of the id replaces
 *   the still-delayed one and restarts the window, so only the last one within `ms` of quiet
 *   runs. Needs a deduplication id (either spelling).
 *
 * Only the canonical form is ever written, so a bullmq reader sees its own options.
 */
import { ValidationError } from '../errors';
import type { DeduplicationOptions, JobsOptions } from './options';

export function resolveOptionAliases(opts: JobsOptions): JobsOptions {
  if (opts === null || typeof opts !== 'object' || Array.isArray(opts)) return opts;
  const { groupKey, deduplicationId, debounceDuration, ...rest } = opts;
  if (groupKey === undefined && deduplicationId === undefined && debounceDuration === undefined) {
    return opts;
  }
  const resolved: JobsOptions = { ...rest };
  if (groupKey !== undefined) {
    if (rest.group !== undefined)
      throw new ValidationError('Use either groupKey or group, not both');
    resolved.group = { id: groupKey };
  }
  let deduplication: DeduplicationOptions | undefined = rest.deduplication;
  if (deduplicationId !== undefined) {
    if (deduplication !== undefined) {
      throw new ValidationError('Use either deduplicationId or deduplication, not both');
    }
    deduplication = { id: deduplicationId };
  }
  if (debounceDuration !== undefined) {
    if (
      typeof debounceDuration !== 'number' ||
      !Number.isFinite(debounceDuration) ||
      debounceDuration <= 0
    ) {
      throw new ValidationError('debounceDuration must be a positive number of ms');
    }
    if (deduplication === undefined) {
      throw new ValidationError('debounceDuration needs a deduplicationId (or deduplication.id)');
    }
    const set = (['ttl', 'extend', 'replace', 'reschedule'] as const).filter(
      (field) => deduplication?.[field] !== undefined,
    );
    if (set.length > 0) {
      throw new ValidationError(
        `debounceDuration sets the deduplication window itself; drop deduplication.${set.join(', deduplication.')}`,
      );
    }
    deduplication = { ...deduplication, ttl: debounceDuration, extend: true, replace: true };
    if (resolved.delay === undefined) resolved.delay = debounceDuration;
  }
  if (deduplication !== undefined) resolved.deduplication = deduplication;
  return resolved;
}
