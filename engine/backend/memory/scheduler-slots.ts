/**
 * Timing of job schedulers (bullmq 6 semantics, the arithmetic of
 * lua/includes/schedulerSlots.lua): iteration ids and the slots of every-schedules, in whole ms.
 */

/** `repeat:<schedulerId>:<millis>`, the id of a scheduler's iteration. */
export function iterationId(schedulerId: string, millis: number): string {
  return `repeat:${schedulerId}:${Math.floor(millis).toFixed(0)}`;
}

/** The offset an every-schedule keeps: the given one, or where `millis` falls in its interval. */
function everyOffset(millis: number, every: number, offset?: number): number {
  return offset !== undefined && offset > 0 ? offset : millis % every;
}

/**
 * The first run of a new (or re-timed) every-schedule: at startDate (never in the past), else on
 * the next k * every + offset slot when an offset is given, else now. Returns [millis, offset].
 */
export function firstEverySlot(
  every: number,
  now: number,
  offset?: number,
  startDate?: number,
): [number, number] {
  let millis: number;
  if (startDate !== undefined) millis = Math.max(startDate, now);
  else if (offset !== undefined && offset > 0) {
    millis = Math.floor(now / every) * every + offset;
    if (millis <= now) millis += every;
  } else millis = now;
  millis = Math.floor(millis);
  return [millis, everyOffset(millis, every, offset)];
}

/**
 * The run after `prevMillis`. When that slot is past already (the schedule fell behind), the
 * missed slots are skipped: the next run is the first slot of the grid strictly after now.
 */
export function nextEverySlot(
  prevMillis: number,
  every: number,
  now: number,
  offset?: number,
): [number, number] {
  let millis = prevMillis + every;
  if (millis < now) {
    millis = Math.floor(now / every) * every + (offset ?? 0);
    if (millis <= now) millis += every;
  }
  millis = Math.floor(millis);
  return [millis, everyOffset(millis, every, offset)];
}
