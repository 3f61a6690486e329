/**
 * Not a processor: the body of a process that hosts a sandboxed Worker (hangs.ts in child
 * processes), so a test can SIGKILL this parent and watch its children go too.
 *
 * argv[2]: JSON { port, queueName }. Prints {"event":"ready"} once the worker is ready.
 */
import path from 'node:path';
import { Worker } from 'oxmq';

const { port, queueName } = JSON.parse(process.argv[2] ?? '{}') as {
  port: number;
  queueName: string;
};
const worker = new Worker(queueName, path.join(__dirname, 'hangs.ts'), {
  connection: { host: '127.0.0.1', port, maxRetriesPerRequest: null },
});
worker.on('ready', () => process.stdout.write(`${JSON.stringify({ event: 'ready' })}\n`));
