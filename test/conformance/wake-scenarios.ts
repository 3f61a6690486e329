/**
 * Waking idle workers (QueueBackend): the signal a worker waits on says when jobs are ready or
 * when the next delayed job is due; a worker's own wake channel ends its wait too; and a wait
 * given up ends at once.
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
      // Nothing left to signal: the wait runs out.
      expect(await backend.waitForMarker(0.2)).toBe('timeout');
    },
  },
  {
    title: "waits on a worker's wake channel alone or beside the queue's signal",
    covers: ['QueueBackend.waitForWake'],
    run: async ({ made }) => {
      const { backend } = made.queue;
      const started = Date.now();
      expect(await backend.waitForWake(0.2, 'conformance-worker')).toBe('timeout');
      expect(Date.now() - started).toBeGreaterThanOrEqual(150);
      // With the wake channel watched too, a ready job still ends the wait with its signal.
      const waiting = backend.waitForMarker(5, { wakeWorker: 'conformance-worker' });
      await backend.addJob(newJob());
      expect(await waiting).toBe(0);
    },
  },
  {
    title: 'ends a wait at once when it is given up, and waits again afterwards',
    covers: ['QueueBackend.waitForMarker', 'QueueBackend.waitForWake'],
    run: async ({ made }) => {
      const { backend } = made.queue;
      // A wait that runs out first: the line is settled (Redis learns its connection's id).
      expect(await backend.waitForMarker(0.2)).toBe('timeout');
      for (const wait of [
        (signal: AbortSignal) => backend.waitForMarker(5, { signal }),
        (signal: AbortSignal) => backend.waitForWake(5, 'conformance-worker', { signal }),
      ]) {
        const controller = new AbortController();
        const started = Date.now();
        const waiting = wait(controller.signal);
        setTimeout(() => controller.abort(), 100);
        expect(await waiting).toBe('interrupted');
        expect(Date.now() - started).toBeLessThan(2_000);
      }
      // The line is free again: the next wait sees the next signal at once.
      const waiting = backend.waitForMarker(5);
      await backend.addJob(newJob());
      const started = Date.now();
      expect(await waiting).toBe(0);
      expect(Date.now() - started).toBeLessThan(2_000);
    },
  },
];
