/**
 * Stop signals that arrive together (a Ctrl-C reaching a process from the terminal and again
 * through npm) are one request; one that comes after the window is the next request.
 */
import { describe, expect, it } from 'vitest';
import { SAME_STOP_WINDOW_MS, stopRequestCounter } from '../../runner/stop-signals';

function clock() {
  let now = 10_000;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

describe('stopRequestCounter', () => {
  it('counts the first signal as the first request', () => {
    const time = clock();
    expect(stopRequestCounter(SAME_STOP_WINDOW_MS, time.now)()).toBe(1);
  });

  it('takes signals inside the window after a request for copies of it', () => {
    const time = clock();
    const count = stopRequestCounter(1_000, time.now);
    expect(count()).toBe(1);
    expect(count()).toBeUndefined();
    time.advance(999);
    expect(count()).toBeUndefined();
  });

  it('counts a signal after the window as the next request, and measures from it', () => {
    const time = clock();
    const count = stopRequestCounter(1_000, time.now);
    expect(count()).toBe(1);
    time.advance(1_000);
    expect(count()).toBe(2);
    time.advance(10);
    expect(count()).toBeUndefined();
    time.advance(1_500);
    expect(count()).toBe(3);
  });
});
