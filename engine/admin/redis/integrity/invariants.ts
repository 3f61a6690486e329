/**
 * The invariants the integrity checker reports (docs/integrity.md) and the shape of its report.
 */
export const INVARIANTS = [
  'multiple-states',
  'member-without-hash',
  'hash-without-state',
  'active-unlocked',
  'attempts-exceeded',
  'parent-link',
  'priority-counter',
  'events-over-cap',
  'duplicate-in-list',
  'lock-without-ttl',
  'group-mismatch',
  'group-active-stray',
  'marker-invalid',
] as const;

export type Invariant = (typeof INVARIANTS)[number];

/** At most this many sample ids per invariant in one report. */
export const MAX_SAMPLES = 10;

export interface IntegrityReport {
  /** True when no invariant was found broken in the work this report covers. */
  clean: boolean;
  counts: Record<Invariant, number>;
  samples: Record<Invariant, string[]>;
  /** Ids and keys examined by this call. */
  scanned: number;
  /**
   * Job hashes the key scan could not place, because a list was longer than the bounded lookups
   * and the page-through allowed (INTEGRITY_LIMITS): their hash-without-state check was skipped.
   */
  unverified: number;
  /** Resume token; undefined when the walk is done. */
  cursor?: string;
}

export function emptyReport(): IntegrityReport {
  const counts = {} as Record<Invariant, number>;
  const samples = {} as Record<Invariant, string[]>;
  for (const name of INVARIANTS) {
    counts[name] = 0;
    samples[name] = [];
  }
  return { clean: true, counts, samples, scanned: 0, unverified: 0 };
}

/** Records one broken invariant with its sample. */
export function record(report: IntegrityReport, invariant: Invariant, sample: string): void {
  report.counts[invariant] += 1;
  report.clean = false;
  if (report.samples[invariant].length < MAX_SAMPLES) report.samples[invariant].push(sample);
}

/** Adds `part` (a later call's report) into `total`; the cursor is `part`'s. */
export function mergeReports(total: IntegrityReport, part: IntegrityReport): IntegrityReport {
  for (const name of INVARIANTS) {
    total.counts[name] += part.counts[name];
    for (const sample of part.samples[name]) {
      if (total.samples[name].length < MAX_SAMPLES && !total.samples[name].includes(sample)) {
        total.samples[name].push(sample);
      }
    }
  }
  total.clean = total.clean && part.clean;
  total.scanned += part.scanned;
  total.unverified += part.unverified;
  total.cursor = part.cursor;
  return total;
}
