/**
 * Error groups as tallies that add up: one scan call groups a slice of the failed jobs, and
 * successive calls' groups are merged (by the console page, which drives the calls) into the
 * groups of every job scanned so far. Pure and dependency-free, so the browser merges with the
 * same code the engine groups with.
 *
 * The number of distinct groups is capped: past `maxGroups`, a job of a signature not yet
 * grouped is only counted in `other`, so one pathological queue (every reason unique) costs a
 * bounded answer.
 */

export interface ErrorGroupSample {
  /** A job of the group (the most recently failed one seen). */
  id: string;
  /** Its failure reason, redacted and shortened. */
  reason: string;
}

export interface ErrorGroup {
  /** The normalised failure reason (error-signature.ts) the group's jobs share. */
  signature: string;
  count: number;
  /** ms since epoch of the group's earliest and latest failure (finishedOn, else timestamp). */
  firstSeen: number;
  lastSeen: number;
  sample: ErrorGroupSample;
}

export interface ErrorGroupTally {
  /** Most jobs first. */
  groups: ErrorGroup[];
  /** Jobs whose signature did not fit under the cap on distinct groups. */
  other: number;
}

/** The most distinct groups a tally holds (a call's and a merged one alike). */
export const MAX_ERROR_GROUPS = 200;

/** Largest first; ties by the latest failure, then by signature so the order is stable. */
export function byCount(a: ErrorGroup, b: ErrorGroup): number {
  return b.count - a.count || b.lastSeen - a.lastSeen || a.signature.localeCompare(b.signature);
}

/** Adds `group` into `into` (same signature): counts add, the span widens, the newest sample wins. */
function absorb(into: ErrorGroup, group: ErrorGroup): ErrorGroup {
  return {
    signature: into.signature,
    count: into.count + group.count,
    firstSeen: Math.min(into.firstSeen, group.firstSeen),
    lastSeen: Math.max(into.lastSeen, group.lastSeen),
    sample: group.lastSeen > into.lastSeen ? group.sample : into.sample,
  };
}

/** The tally of both; groups that do not fit under `maxGroups` are counted in `other`. */
export function mergeErrorGroups(
  a: ErrorGroupTally,
  b: ErrorGroupTally,
  maxGroups: number = MAX_ERROR_GROUPS,
): ErrorGroupTally {
  const bySignature = new Map<string, ErrorGroup>();
  let other = a.other + b.other;
  // The larger groups claim the capped places first, whichever call saw them.
  for (const group of [...a.groups, ...b.groups].sort(byCount)) {
    const known = bySignature.get(group.signature);
    if (known) bySignature.set(group.signature, absorb(known, group));
    else if (bySignature.size < maxGroups) bySignature.set(group.signature, group);
    else other += group.count;
  }
  return { groups: [...bySignature.values()].sort(byCount), other };
}
