/**
 * A scheduler's definition read back from `Q repeat:<id>` as upsert arguments: what resume and
 * an edit of the schedule re-upsert, so both go through upsert's own validation and Lua.
 */
import { decodeOptions, type JobsOptions } from '../job/options';
import type { RepeatOptions } from './repeat-options';

function intField(hash: Record<string, string>, field: string): number | undefined {
  const text = hash[field];
  if (text === undefined || text === '') return undefined;
  const value = Number(text);
  return Number.isFinite(value) ? value : undefined;
}

/** The repeat options the hash records (offset only with every, as upsert accepts it). */
export function storedRepeatOptions(hash: Record<string, string>): RepeatOptions {
  const every = intField(hash, 'every');
  const repeat: RepeatOptions = every !== undefined ? { every } : { pattern: hash.pattern ?? '' };
  if (hash.tz) repeat.tz = hash.tz;
  const limit = intField(hash, 'limit');
  if (limit !== undefined) repeat.limit = limit;
  const startDate = intField(hash, 'startDate');
  if (startDate !== undefined) repeat.startDate = startDate;
  const endDate = intField(hash, 'endDate');
  if (endDate !== undefined) repeat.endDate = endDate;
  const offset = intField(hash, 'offset');
  // bullmq stores offset 0 for cron schedulers too; upsert only takes one with every.
  if (every !== undefined && offset !== undefined) repeat.offset = offset % every;
  return repeat;
}

/** The template (name, data, opts) the hash records; data and opts are JSON there. */
export function storedTemplate(hash: Record<string, string>): {
  name: string;
  data: unknown;
  opts: JobsOptions;
} {
  // Unreadable JSON throws: re-upserting a guessed template would change what the jobs carry.
  const data: unknown = hash.data === undefined ? {} : JSON.parse(hash.data);
  let opts: JobsOptions = {};
  if (hash.opts !== undefined) {
    const parsed: unknown = JSON.parse(hash.opts);
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) {
      opts = decodeOptions(parsed as Record<string, unknown>);
    }
  }
  return { name: hash.name ?? '', data, opts };
}
