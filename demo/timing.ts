/**
 * Demo time: every duration the demo makes up (how long a job works, how long between jobs) goes
 * through here, divided by OXMQ_DEMO_SPEED, so a test can run the whole demo in seconds.
 */
import { demoSettings } from './settings';

/** `ms` of demo time in real milliseconds (never below 1). */
export function scaled(ms: number): number {
  return Math.max(1, Math.round(ms / demoSettings().speed));
}

/** A whole number in [min, max]. */
export function between(min: number, max: number): number {
  return min + Math.floor(Math.random() * (max - min + 1));
}

/** Waits `ms` of demo time. */
export function work(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, scaled(ms)));
}

export function pick<T>(items: readonly [T, ...T[]]): T {
  return items[Math.floor(Math.random() * items.length)] ?? items[0];
}
