import type { KeepRule } from '../backend/queue-backend';
import type { KeepJobs } from './options';

/**
 * removeOnComplete / removeOnFail as the finishing script applies it: the job's own option wins
 * over the worker's; true deletes (count 0), false or unset keeps everything (count -1).
 */
export function keepRule(
  jobOption: KeepJobs | undefined,
  workerOption: KeepJobs | undefined,
): KeepRule {
  const option = jobOption ?? workerOption;
  if (option === undefined || option === false) return { count: -1 };
  if (option === true) return { count: 0 };
  if (typeof option === 'number') return { count: option };
  const rule: KeepRule = { count: option.count ?? -1 };
  if (option.age !== undefined) rule.age = option.age;
  if (option.limit !== undefined) rule.limit = option.limit;
  return rule;
}
