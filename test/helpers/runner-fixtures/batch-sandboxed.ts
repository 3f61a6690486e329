/** Fixture: batch mode and a sandbox together, which the runner must refuse. */
import type { ProcessorOptions } from '../../../runner';

export const queue = 'batch-sandboxed';

export const options: ProcessorOptions = { batch: { size: 5 }, sandbox: 'process' };

export default async function neverRuns() {
  return [];
}
