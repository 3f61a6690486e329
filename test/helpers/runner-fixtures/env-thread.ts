/** Fixture: a processor in a worker thread sandbox that reports the variables it can read. */
import type { ProcessorOptions } from '../../../runner';

export const queue = 'env-thread';

export const options: ProcessorOptions = { sandbox: 'thread' };

export default async function variables() {
  return { names: Object.keys(process.env).sort(), myService: process.env.MY_SERVICE_URL };
}
