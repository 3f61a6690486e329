/**
 * Which invariants one id read from a state structure breaks, given a probe's facts
 * (docs/integrity.md defines each).
 */
import type { Invariant } from './invariants';
import type { ProbeBatch, ProbeFacts } from './probe';
import { stateRank, type StateName } from './states';

const COUNTER_SPAN = 2 ** 32;

/** `opts.attempts` of a job (0 when absent or unreadable). */
function attemptsOf(opts: string | null): number {
  if (opts === null) return 0;
  try {
    const attempts = Number((JSON.parse(opts) as { attempts?: unknown }).attempts);
    return Number.isFinite(attempts) ? attempts : 0;
  } catch {
    return 0;
  }
}

/** A child flagged removeDependencyOnFailure leaves no record in its parent when it fails. */
function removesDependencyOnFailure(parent: string | null): boolean {
  if (parent === null) return false;
  try {
    return Boolean((JSON.parse(parent) as { rdof?: unknown }).rdof);
  } catch {
    return false;
  }
}

/** Where an id was read from a list (wait, paused, active or a group's line). */
export interface ListEntry {
  /** The list's key. */
  key: string;
  /** The entry's index from the head when its window was read. */
  position: number;
  /** The window read holds the id at another index too. */
  twiceInWindow: boolean;
  /** No earlier index of the window holds the id. */
  firstInWindow: boolean;
  /** The group whose line this is (the `group` state). */
  gid?: string;
}

/**
 * An id in its list twice, reported at its first entry only: the one at the head lookup's index,
 * or, when the lookups cannot see it (deep inside a long list), the first in the window.
 */
function isRepeated(facts: ProbeFacts, entry: ListEntry): boolean {
  const at = facts.listPositions[entry.key];
  const seenTwice =
    (at !== undefined && at.head !== null && at.tail !== null && at.head !== at.tail) ||
    entry.twiceInWindow;
  if (!seenTwice) return false;
  return at !== undefined && at.head !== null ? at.head === entry.position : entry.firstInWindow;
}

export function judgeMember(
  state: StateName,
  facts: ProbeFacts,
  batch: Pick<ProbeBatch, 'stalledCheckRunning' | 'pc'>,
  entry?: ListEntry,
): Invariant[] {
  if (!facts.exists) return ['member-without-hash'];
  const found: Invariant[] = [];
  const states = new Set(facts.states).add(state);
  // Reported once, from the first state (in walk order) that holds the id.
  if (states.size > 1 && Math.min(...[...states].map(stateRank)) === stateRank(state)) {
    found.push('multiple-states');
  }
  if (state === 'active' && !facts.locked && !facts.stalled && !batch.stalledCheckRunning) {
    found.push('active-unlocked');
  }
  const attempts = attemptsOf(facts.fields.opts);
  const made = Number(facts.fields.atm ?? facts.fields.attemptsMade ?? 0);
  if (!states.has('active') && attempts > 0 && made > attempts) found.push('attempts-exceeded');
  if (
    facts.parentExists &&
    facts.parentListed === false &&
    !removesDependencyOnFailure(facts.fields.parent)
  ) {
    found.push('parent-link');
  }
  if (
    state === 'prioritized' &&
    facts.prioritizedScore !== null &&
    facts.prioritizedScore % COUNTER_SPAN > batch.pc
  ) {
    found.push('priority-counter');
  }
  if (entry && isRepeated(facts, entry)) found.push('duplicate-in-list');
  if (state === 'group' && entry?.gid !== undefined && facts.fields.gid !== entry.gid) {
    found.push('group-mismatch');
  }
  return found;
}

/**
 * A job hash (the key exists and has `timestamp`) that no state holds, as far as can be told:
 * `pagedAbsent` says a page-through of the long lists did not find it either.
 */
export function isStateless(facts: ProbeFacts, pagedAbsent = false): boolean {
  return (
    facts.exists &&
    facts.fields.timestamp !== null &&
    facts.states.size === 0 &&
    !facts.inGroupActive &&
    (!facts.unknown || pagedAbsent)
  );
}
