/** The events stream against its cap (`opts.maxLenEvents` of `Q meta`, 10000 when absent). */
import { DEFAULTS } from '../../../defaults';
import type { Redis } from 'ioredis';
import { record, type IntegrityReport } from './invariants';
import { INTEGRITY_LIMITS } from './limits';

/** Entries tolerated over `cap`: XADD / XTRIM `MAXLEN ~` trim whole stream nodes only. */
function eventsSlack(cap: number): number {
  return Math.max(
    INTEGRITY_LIMITS.eventsSlackMin,
    Math.ceil(cap * INTEGRITY_LIMITS.eventsSlackRatio),
  );
}

export async function checkEventsCap(
  client: Redis,
  base: string,
  report: IntegrityReport,
): Promise<void> {
  const [configured, length] = await Promise.all([
    client.hget(`${base}meta`, 'opts.maxLenEvents'),
    client.xlen(`${base}events`),
  ]);
  const parsed = configured === null ? DEFAULTS.maxLenEvents : Number(configured);
  const cap = Number.isFinite(parsed) ? parsed : DEFAULTS.maxLenEvents;
  if (length > cap + eventsSlack(cap)) {
    record(report, 'events-over-cap', `${base}events: ${length} entries, cap ${cap}`);
  }
}
