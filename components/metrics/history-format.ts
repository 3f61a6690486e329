/**
 * Text for the history charts: durations in the unit a person reads (ms, s, min, h, d), the
 * time a point covers, axis ticks per range, rates. Dates and times are the browser's local
 * ones; counts use the console's one number format.
 */
import type { HistoryRangeName } from '@/lib/api-types';

export interface HistoryRangeOption {
  value: HistoryRangeName;
  /** The picker's label. */
  label: string;
  /** "Last …" in sentences. */
  span: string;
  /** What one point covers. */
  step: string;
  /** Least time between two refreshes of a chart of this range (ms). */
  minRefreshMs: number;
}

/** The ranges the engine answers (engine/admin/history.ts, HISTORY_RANGES), shortest first. */
export const HISTORY_RANGE_OPTIONS: readonly HistoryRangeOption[] = [
  { value: '1h', label: '1 h', span: '1 h', step: '1 min', minRefreshMs: 10_000 },
  { value: '6h', label: '6 h', span: '6 h', step: '5 min', minRefreshMs: 30_000 },
  { value: '24h', label: '24 h', span: '24 h', step: '15 min', minRefreshMs: 60_000 },
  { value: '7d', label: '7 d', span: '7 days', step: '1 h', minRefreshMs: 300_000 },
  { value: '30d', label: '30 d', span: '30 days', step: '4 h', minRefreshMs: 300_000 },
];

const DEFAULT_HISTORY_RANGE: HistoryRangeName = '1h';

export function rangeOption(range: HistoryRangeName): HistoryRangeOption {
  return (
    HISTORY_RANGE_OPTIONS.find((option) => option.value === range) ?? HISTORY_RANGE_OPTIONS[0]!
  );
}

/** A range from the URL; anything else is the default. */
export function parseHistoryRange(text: string | null | undefined): HistoryRangeName {
  return (
    HISTORY_RANGE_OPTIONS.find((option) => option.value === text)?.value ?? DEFAULT_HISTORY_RANGE
  );
}

const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** Up to three significant digits, no trailing zeros: 4.25, 42.5, 425. */
function short(value: number): string {
  const digits = value < 10 ? 2 : value < 100 ? 1 : 0;
  return String(Number(value.toFixed(digits)));
}

/** A duration in ms for a person: 0.8 ms, 42 ms, 1.5 s, 12 min, 3.2 h, 2.5 d. */
export function formatMs(ms: number): string {
  if (!Number.isFinite(ms)) return '—';
  const abs = Math.abs(ms);
  if (abs < SECOND) return `${short(ms)} ms`;
  if (abs < MINUTE) return `${short(ms / SECOND)} s`;
  if (abs < HOUR) return `${short(ms / MINUTE)} min`;
  if (abs < 2 * DAY) return `${short(ms / HOUR)} h`;
  return `${short(ms / DAY)} d`;
}

/** A share as a percentage: 0 %, 0.4 %, 14.3 %, 100 %. */
export function formatPercent(share: number): string {
  if (!Number.isFinite(share)) return '—';
  const pct = share * 100;
  return `${pct === 0 || pct >= 10 ? Number(pct.toFixed(1)) : Number(pct.toFixed(2))} %`;
}

const TIME: Intl.DateTimeFormatOptions = { hour: '2-digit', minute: '2-digit' };
const DATE: Intl.DateTimeFormatOptions = { weekday: 'short', day: 'numeric', month: 'short' };

/** The time a point covers, for tooltips: "Tue 3 Mar, 14:05–14:10". */
export function formatPointSpan(at: number, stepMs: number): string {
  const start = new Date(at);
  const end = new Date(at + stepMs);
  const day = start.toLocaleDateString(undefined, DATE);
  return `${day}, ${start.toLocaleTimeString(undefined, TIME)}–${end.toLocaleTimeString(undefined, TIME)}`;
}

/** The start of a point, in sentences: "14:05" within the day, "Tue 3 Mar, 14:00" further. */
export function formatPointStart(at: number, stepMs: number): string {
  const start = new Date(at);
  const time = start.toLocaleTimeString(undefined, TIME);
  return stepMs < HOUR ? time : `${start.toLocaleDateString(undefined, DATE)}, ${time}`;
}

const TICK_STEPS = [
  5 * MINUTE,
  10 * MINUTE,
  15 * MINUTE,
  30 * MINUTE,
  HOUR,
  2 * HOUR,
  3 * HOUR,
  6 * HOUR,
  12 * HOUR,
  DAY,
  2 * DAY,
  5 * DAY,
  7 * DAY,
];

/**
 * Round wall-clock ticks across [from, to], at most about 8: every 5, 10, 15 ... minutes, hours,
 * or local midnights for the longer ranges.
 */
export function timeTicks(from: number, to: number): number[] {
  const step = TICK_STEPS.find((size) => (to - from) / size <= 8) ?? 7 * DAY;
  const ticks: number[] = [];
  if (step < DAY) {
    // Local time: an hour step lands on the hour where the zone is a whole number of hours off.
    const offset = new Date(from).getTimezoneOffset() * MINUTE;
    for (let t = Math.ceil((from - offset) / step) * step + offset; t <= to; t += step) {
      ticks.push(t);
    }
    return ticks;
  }
  const days = step / DAY;
  const day = new Date(from);
  day.setHours(0, 0, 0, 0);
  if (day.getTime() < from) day.setDate(day.getDate() + 1);
  for (let i = 0; day.getTime() <= to; i++) {
    if (i % days === 0) ticks.push(day.getTime());
    day.setDate(day.getDate() + 1);
  }
  return ticks;
}

/** A tick's label: the time for ranges within a day, the date for longer ones. */
export function formatTick(t: number, to: number, from: number): string {
  const date = new Date(t);
  if (to - from <= DAY) return date.toLocaleTimeString(undefined, TIME);
  return date.toLocaleDateString(undefined, { day: 'numeric', month: 'short' });
}
