import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { inject } from 'vitest';

/** Connection options for the run's private redis-server. */
export function redisOptions() {
  return { host: '127.0.0.1', port: inject('redisPort'), maxRetriesPerRequest: null };
}

export function redisUrl(): string {
  return `redis://127.0.0.1:${inject('redisPort')}`;
}

/** A plain client for assertions on raw Redis state; close it with quit(). */
export function rawClient(): Redis {
  return new Redis(redisOptions());
}

/** A queue name nobody else in the run uses. */
export function uniqueQueueName(label = 'q'): string {
  return `${label}-${randomUUID().slice(0, 8)}`;
}

/** Polls until check() is truthy or the timeout passes; returns the last value. */
export async function waitFor<T>(
  check: () => Promise<T> | T,
  timeoutMs = 10_000,
  intervalMs = 20,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`waitFor timed out after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
