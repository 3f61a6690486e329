/** Fixture: a processor in a child process sandbox that reports the variables it can read. */
import type { ProcessorOptions } from '../../../runner';

export const queue = 'env-process';

export const options: ProcessorOptions = { sandbox: 'process' };

export default async function variables() {
  return { names: Object.keys(process.env).sort(), myService: process.env.MY_SERVICE_URL };
}
