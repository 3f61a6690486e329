/**
 * Waking idle workers (QueueBackend): the signal a worker waits on says when jobs are ready
 * or when the next delayed job is due; a worker's own wake key ends its wait too.
 */
import { expect } from 'vitest';
import { newJob } from '../helpers/new-job';
import type { Scenario } from './harness';

export const wakeScenarios: Scenario[] = [
  {
    title: 'wakes a waiting worker when a job is ready, and tells it when a delayed one is due',
    covers: ['QueueBackend.waitForMarker'],
    run: async ({ made }) => {
      const { backend } = made.queue;
      const waiting = backend.waitForMarker(5);
      await backend.addJob(newJob());
      expect(await waiting).toBe(0);
      const now = Date.now();
      await backend.addJob(newJob({ timestamp: now, delay: 60_000 }));
      expect(await backend.waitForMarker(1)).toBe(now + 60_000);
      // Nothing left to signal: the wait ends empty.
      expect(await backend.waitForMarker(0.2)).toBeUndefined();
    },
  },
  {
    title: "waits on a worker's wake key alone or beside the queue's signal",
    covers: ['QueueBackend.waitForWake'],
    run: async ({ made }) => {
      const { backend } = made.queue;
      const wakeKey = `${made.keys.base}oxmq:worker:conformance:wake`;
      const started = Date.now();
      expect(await backend.waitForWake(0.2, wakeKey)).toBeUndefined();
      expect(Date.now() - started).toBeGreaterThanOrEqual(150);
      // With the wake key watched too, a ready job still ends the wait with its signal.
      const waiting = backend.waitForMarker(5, wakeKey);
      await backend.addJob(newJob());
      expect(await waiting).toBe(0);
    },
  },
];
