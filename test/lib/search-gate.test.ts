/**
 * lib/server/search-gate.ts: a few heavy scans run at once, at most `perUser` of one user; a
 * few more wait their turn, first come first served among users below their share; the rest,
 * and waiters past the wait limit, are refused with 429 SEARCH_BUSY and Retry-After; an aborted
 * waiter leaves the line.
 */
import { describe, expect, it } from 'vitest';
import { ApiProblem } from '../../lib/server/api-error';
import { SearchGate, type SearchGateLimits } from '../../lib/server/search-gate';

const LIMITS: SearchGateLimits = {
  running: 3,
  perUser: 2,
  waiting: 3,
  perUserWaiting: 2,
  maxWaitMs: 60_000,
};

/** A scan that runs until finished by hand; `started` tells whether the gate let it start. */
function heldScan(gate: SearchGate, username: string, signal?: AbortSignal) {
  let finish!: () => void;
  const done = new Promise<void>((resolve) => (finish = resolve));
  const scan = { started: false, finish, outcome: undefined as unknown };
  const result = gate
    .run(
      username,
      async () => {
        scan.started = true;
        await done;
        return username;
      },
      signal,
    )
    .then(
      (value) => (scan.outcome = value),
      (error: unknown) => (scan.outcome = error),
    );
  return Object.assign(scan, { result });
}

/** Lets settled promises run their callbacks. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

function expectBusy(outcome: unknown): void {
  expect(outcome).toBeInstanceOf(ApiProblem);
  expect(outcome).toMatchObject({ status: 429, code: 'SEARCH_BUSY' });
  expect((outcome as ApiProblem).retryAfterSeconds).toBeGreaterThan(0);
}

describe('SearchGate', () => {
  it('runs a user at most perUser at once, queues a few more, refuses the rest at once', async () => {
    const gate = new SearchGate(LIMITS);
    const scans = Array.from({ length: 6 }, () => heldScan(gate, 'vic'));
    await settle();
    expect(scans.map((scan) => scan.started)).toEqual([true, true, false, false, false, false]);
    expect(gate.waiting).toBe(2);
    for (const scan of scans.slice(4)) expectBusy(scan.outcome);

    // Another user is not held up by vic: a slot of the three is still free.
    const ann = heldScan(gate, 'ann');
    await settle();
    expect(ann.started).toBe(true);
    expect(gate.running).toBe(3);

    // When one of vic's ends, the next of vic's waiters takes the slot.
    scans[0]!.finish();
    await settle();
    expect(scans[0]!.outcome).toBe('vic');
    expect(scans[2]!.started).toBe(true);
    expect(gate.running).toBe(3);
    for (const scan of [scans[1]!, scans[2]!, ann]) scan.finish();
    await settle();
    expect(scans[3]!.started).toBe(true);
    scans[3]!.finish();
    await Promise.all(scans.map((scan) => scan.result));
    expect(gate.running).toBe(0);
    expect(gate.waiting).toBe(0);
  });

  it('hands a freed slot to the first waiter below their share', async () => {
    const gate = new SearchGate({ ...LIMITS, running: 2, perUser: 1 });
    const vic = heldScan(gate, 'vic');
    const ann = heldScan(gate, 'ann');
    const vicAgain = heldScan(gate, 'vic');
    const bob = heldScan(gate, 'bob');
    const eve = heldScan(gate, 'eve');
    await settle();
    expect([vic, ann, vicAgain, bob, eve].map((scan) => scan.started)).toEqual([
      true,
      true,
      false,
      false,
      false,
    ]);
    // ann's slot frees while vic is still at their share: bob, next in line, gets it.
    ann.finish();
    await settle();
    expect([vicAgain.started, bob.started, eve.started]).toEqual([false, true, false]);
    // vic's frees: vic's own waiter, first in line, now fits.
    vic.finish();
    await settle();
    expect([vicAgain.started, eve.started]).toEqual([true, false]);
    bob.finish();
    await settle();
    expect(eve.started).toBe(true);
    vicAgain.finish();
    eve.finish();
    await Promise.all([vic, ann, vicAgain, bob, eve].map((scan) => scan.result));
    expect(gate.running).toBe(0);
  });

  it('refuses a waiter after the wait limit, and drops one whose request is aborted', async () => {
    const gate = new SearchGate({ ...LIMITS, running: 1, maxWaitMs: 50 });
    const holder = heldScan(gate, 'vic');
    const aborted = new AbortController();
    const impatient = heldScan(gate, 'ann', aborted.signal);
    const timedOut = heldScan(gate, 'bob');
    await settle();
    expect(gate.waiting).toBe(2);
    aborted.abort();
    await impatient.result;
    expectBusy(impatient.outcome);
    expect(gate.waiting).toBe(1);
    await timedOut.result;
    expectBusy(timedOut.outcome);
    expect(gate.waiting).toBe(0);
    expect(impatient.started || timedOut.started).toBe(false);
    holder.finish();
    await holder.result;
    expect(gate.running).toBe(0);
  });
});
