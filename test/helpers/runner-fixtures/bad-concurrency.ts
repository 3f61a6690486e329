/** Fixture: an option out of range (concurrency must be at least 1). */
import type { ProcessorOptions } from '../../../runner';

export const queue = 'bad-concurrency';

export const options: ProcessorOptions = { concurrency: 0 };

export default async function neverRuns() {
  return null;
}
