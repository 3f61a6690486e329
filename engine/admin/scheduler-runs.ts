/**
 * Which iteration jobs belong to a scheduler row: the pending one is `repeat:<id>:<score>`; the
 * previous one is not recorded by bullmq 6.7.0's scheduler hash, so it is looked for at the
 * schedule's previous slot (every: score - every; cron: the cron instant before the score). A
 * run made late after downtime, or removed since, is not found there: the row says so.
 */
import { CronExpressionParser } from 'cron-parser';

export function iterationJobId(schedulerId: string, millis: number): string {
  return `repeat:${schedulerId}:${millis}`;
}

/** The slot before `millis` on the schedule, or undefined when it has none. */
export function previousSlot(
  millis: number,
  schedule: { every?: number; pattern?: string; tz?: string },
): number | undefined {
  if (schedule.every !== undefined && schedule.every > 0) return millis - schedule.every;
  if (!schedule.pattern) return undefined;
  try {
    const expression = CronExpressionParser.parse(schedule.pattern, {
      currentDate: new Date(millis),
      ...(schedule.tz !== undefined && { tz: schedule.tz }),
    });
    return expression.prev().getTime();
  } catch {
    return undefined;
  }
}
