/**
 * Repeat options of a job scheduler: validation (before anything is written), the normalised
 * definition stored in `Q repeat:<id>`, the `repeat` object iteration jobs carry in their opts,
 * and the cron arithmetic (cron-parser 5, with time zones).
 */
import { CronExpressionParser } from 'cron-parser';
import { ValidationError } from '../errors';

/** How a scheduler repeats: `every` ms, or a cron `pattern` (5 fields, or 6 with seconds). */
export interface RepeatOptions {
  /** Interval in ms (a positive integer). Exclusive with `pattern`. */
  every?: number;
  /** Cron expression, e.g. `'0 9 * * 1-5'` or with a seconds field `'0 30 9 * * *'`. */
  pattern?: string;
  /** IANA time zone the pattern is read in (default UTC). Only with `pattern`. */
  tz?: string;
  /** No run before this instant. */
  startDate?: Date | number | string;
  /** No run after this instant; must be in the future. */
  endDate?: Date | number | string;
  /** Most iterations ever created (a positive integer). */
  limit?: number;
  /** `every` only: runs fall on `k * every + offset` ms since the epoch (0 <= offset < every). */
  offset?: number;
  /** `pattern` only: the first run happens now instead of at the first cron instant. */
  immediately?: boolean;
}

/** Validated repeat options: dates as ms. */
export interface ValidRepeatOptions extends Omit<RepeatOptions, 'startDate' | 'endDate'> {
  startDate?: number;
  endDate?: number;
}

/** What `Q repeat:<id>` records about the schedule (dates in ms). */
export interface SchedulerDefinition {
  name: string;
  every?: number;
  pattern?: string;
  tz?: string;
  limit?: number;
  startDate?: number;
  endDate?: number;
  offset?: number;
}

/**
 * The `repeat` object inside an iteration's opts, as bullmq writes and reads it: the caller's
 * repeat options (without `immediately`), dates in ms, and `count`, the iteration's number.
 */
export interface IterationRepeat {
  every?: number;
  pattern?: string;
  tz?: string;
  limit?: number;
  startDate?: number;
  endDate?: number;
  offset?: number;
  count?: number;
  [field: string]: unknown;
}

const REPEAT_KEYS = new Set([
  'every',
  'pattern',
  'tz',
  'startDate',
  'endDate',
  'limit',
  'offset',
  'immediately',
]);

function isPositiveInteger(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0;
}

/** A Date, ms number or date string as ms; ValidationError if it is no valid instant. */
function toMillis(value: unknown, what: string): number {
  const ms =
    value instanceof Date
      ? value.getTime()
      : typeof value === 'number' || typeof value === 'string'
        ? new Date(value).getTime()
        : NaN;
  if (!Number.isFinite(ms)) throw new ValidationError(`${what} is not a valid date`);
  return ms;
}

/** True when `tz` names a time zone this runtime (and so cron-parser's luxon) knows. */
function isKnownTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

/**
 * The first cron instant strictly after `from` (and not before `startDate`), or undefined when
 * the pattern has none before `endDate`. Patterns are parsed as cron-parser does for bullmq.
 */
export function nextCronMillis(
  from: number,
  repeat: { pattern: string; tz?: string; startDate?: number; endDate?: number },
): number | undefined {
  const currentDate =
    repeat.startDate !== undefined && repeat.startDate > from ? repeat.startDate : from;
  try {
    const expression = CronExpressionParser.parse(repeat.pattern, {
      currentDate: new Date(currentDate),
      ...(repeat.tz !== undefined && { tz: repeat.tz }),
      ...(repeat.endDate !== undefined && { endDate: new Date(repeat.endDate) }),
    });
    return expression.next().getTime();
  } catch {
    return undefined;
  }
}

/** The validated schedule, ready to store; throws ValidationError on any bad field. */
export function validateRepeatOptions(repeat: unknown, now: number): ValidRepeatOptions {
  if (repeat === null || typeof repeat !== 'object' || Array.isArray(repeat)) {
    throw new ValidationError('repeat options must be an object with every or pattern');
  }
  const opts = repeat as Record<string, unknown>;
  for (const key of Object.keys(opts)) {
    if (opts[key] !== undefined && !REPEAT_KEYS.has(key)) {
      throw new ValidationError(`unknown repeat option "${key}"`);
    }
  }
  const { every, pattern, tz, limit, offset, immediately } = opts;
  // bullmq's messages, word for word: code written for bullmq matches on them.
  if (every !== undefined && pattern !== undefined) {
    throw new ValidationError(
      'Both .pattern and .every options are defined for this repeatable job',
    );
  }
  if (every === undefined && pattern === undefined) {
    throw new ValidationError(
      'Either .pattern or .every options must be defined for this repeatable job',
    );
  }
  if (every !== undefined && !isPositiveInteger(every)) {
    throw new ValidationError('every must be a positive integer number of ms');
  }
  // With every, bullmq 6.7 accepts and stores tz though an interval in ms has no use for it;
  // so does OxMQ, so a scheduler definition written for bullmq is accepted unchanged.
  if (tz !== undefined && (typeof tz !== 'string' || !isKnownTimeZone(tz))) {
    throw new ValidationError(`unknown time zone "${String(tz)}"`);
  }
  if (pattern !== undefined) {
    if (typeof pattern !== 'string' || pattern.trim() === '') {
      throw new ValidationError('pattern must be a non-empty cron string');
    }
    try {
      CronExpressionParser.parse(pattern, tz === undefined ? {} : { tz: tz as string });
    } catch (error) {
      throw new ValidationError(`cron pattern "${pattern}" does not parse: ${String(error)}`);
    }
  }
  // `immediately` with `every` is accepted as bullmq accepts it, and changes nothing: an every
  // schedule runs its first job at once anyway.
  if (limit !== undefined && !isPositiveInteger(limit)) {
    throw new ValidationError('limit must be a positive integer');
  }
  if (offset !== undefined) {
    if (every === undefined) throw new ValidationError('offset only applies to every');
    if (!(Number.isSafeInteger(offset) && (offset as number) >= 0 && (offset as number) < every)) {
      throw new ValidationError('offset must be an integer with 0 <= offset < every');
    }
  }
  if (immediately !== undefined && typeof immediately !== 'boolean') {
    throw new ValidationError('immediately must be a boolean');
  }
  const startDate =
    opts.startDate === undefined ? undefined : toMillis(opts.startDate, 'startDate');
  const endDate = opts.endDate === undefined ? undefined : toMillis(opts.endDate, 'endDate');
  if (immediately && startDate !== undefined) {
    throw new ValidationError('immediately and startDate cannot be combined');
  }
  if (endDate !== undefined && endDate <= now) {
    throw new ValidationError('endDate must be in the future');
  }
  if (endDate !== undefined && startDate !== undefined && endDate <= startDate) {
    throw new ValidationError('endDate must be after startDate');
  }
  return {
    ...(every !== undefined && { every: every as number }),
    ...(pattern !== undefined && { pattern: pattern as string }),
    ...(tz !== undefined && { tz: tz as string }),
    ...(startDate !== undefined && { startDate }),
    ...(endDate !== undefined && { endDate }),
    ...(limit !== undefined && { limit: limit as number }),
    ...(offset !== undefined && { offset: offset as number }),
    ...(immediately === true && { immediately: true }),
  };
}

/** The scheduler hash's definition for validated options. */
export function schedulerDefinition(name: string, repeat: ValidRepeatOptions): SchedulerDefinition {
  return {
    name,
    ...(repeat.every !== undefined && { every: repeat.every }),
    ...(repeat.pattern !== undefined && { pattern: repeat.pattern }),
    ...(repeat.tz !== undefined && { tz: repeat.tz }),
    ...(repeat.limit !== undefined && { limit: repeat.limit }),
    ...(repeat.startDate !== undefined && { startDate: repeat.startDate }),
    ...(repeat.endDate !== undefined && { endDate: repeat.endDate }),
    ...(repeat.offset !== undefined && { offset: repeat.offset }),
  };
}

/**
 * The `repeat` object of iteration number `count`: the schedule's options without
 * `immediately`, dates as ms, `offset` kept only for every (bullmq drops it otherwise).
 */
export function iterationRepeat(
  repeat: IterationRepeat | ValidRepeatOptions,
  count: number,
): IterationRepeat {
  const result: IterationRepeat = {};
  for (const [key, value] of Object.entries(repeat)) {
    if (value === undefined || value === null || key === 'immediately') continue;
    result[key] = value;
  }
  if (result.startDate !== undefined) result.startDate = toMillis(result.startDate, 'startDate');
  if (result.endDate !== undefined) result.endDate = toMillis(result.endDate, 'endDate');
  if (!(result.every && result.offset)) delete result.offset;
  result.count = count;
  return result;
}
