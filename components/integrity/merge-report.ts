/**
 * Adds one checker call's report to the walk's running total, as the engine's mergeReports does
 * (engine/admin/redis/integrity/invariants.ts); kept here so the page bundles no engine code.
 */
import type { IntegrityReportBody } from '@/lib/api-types';

const MAX_SAMPLES = 10;

export function mergeReport(
  total: IntegrityReportBody | null,
  part: IntegrityReportBody,
): IntegrityReportBody {
  if (total === null) return part;
  const counts = { ...total.counts };
  const samples: Record<string, string[]> = {};
  for (const code of new Set([...Object.keys(total.counts), ...Object.keys(part.counts)])) {
    counts[code] = (total.counts[code] ?? 0) + (part.counts[code] ?? 0);
    const merged = [...(total.samples[code] ?? [])];
    for (const sample of part.samples[code] ?? []) {
      if (merged.length < MAX_SAMPLES && !merged.includes(sample)) merged.push(sample);
    }
    samples[code] = merged;
  }
  return {
    clean: total.clean && part.clean,
    counts,
    samples,
    scanned: total.scanned + part.scanned,
    unverified: total.unverified + part.unverified,
    cursor: part.cursor,
  };
}
