/** The per-actor throttle of refused requests in the audit stream (lib/server/refusal-throttle.ts). */
import { describe, expect, it } from 'vitest';
import { RefusalThrottle } from '../../lib/server/refusal-throttle';

describe('RefusalThrottle', () => {
  it('writes the first few of a window, counts the rest, and reports the count next window', () => {
    const throttle = new RefusalThrottle({ perWindow: 3, windowMs: 1_000, maxActors: 10 });
    const t0 = 1_000_000;
    const first = [0, 1, 2, 3, 4, 5].map((i) => throttle.admit('viewer', t0 + i));
    expect(first.map((a) => a.write)).toEqual([true, true, true, false, false, false]);
    // Another actor has a window of its own.
    expect(throttle.admit('other', t0 + 10)).toEqual({ write: true, suppressed: 0 });
    expect(throttle.admit('viewer', t0 + 1_000)).toEqual({ write: true, suppressed: 3 });
    expect(throttle.admit('viewer', t0 + 1_001)).toEqual({ write: true, suppressed: 0 });
  });

  it('remembers a bounded number of actors', () => {
    const throttle = new RefusalThrottle({ perWindow: 1, windowMs: 60_000, maxActors: 2 });
    throttle.admit('a', 0);
    throttle.admit('a', 1); // suppressed
    throttle.admit('b', 2);
    throttle.admit('c', 3); // evicts a, the oldest
    expect(throttle.admit('a', 4)).toEqual({ write: true, suppressed: 0 });
  });
});
