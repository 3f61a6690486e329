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

export function judgeMember(
  state: StateName,
  facts: ProbeFacts,
  batch: Pick<ProbeBatch, 'stalledCheckRunning' | 'pc'>,
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
