/**
 * Child process body for the backlog sampler test: one BacklogSampler (a console's or a
 * runner's) on the test's Redis, reporting each turn it sampled as a JSON line on stdout
 * (`sampled`: holder, turn, queues). On SIGTERM it stops (giving its lease up) and exits.
 *
 * argv[2]: JSON { port, prefix, intervalMs, holder }.
 */
import { Redis } from 'ioredis';
import { BacklogSampler } from 'oxmq/admin';

const config = JSON.parse(process.argv[2] ?? '{}') as {
  port: number;
  prefix: string;
  intervalMs: number;
  holder: string;
};
const report = (message: Record<string, unknown>) =>
  process.stdout.write(`${JSON.stringify(message)}\n`);

const client = new Redis({ host: '127.0.0.1', port: config.port, maxRetriesPerRequest: null });
const sampler = new BacklogSampler(client, {
  prefixes: [config.prefix],
  intervalMs: config.intervalMs,
  holder: config.holder,
  onSampled: ({ turn, queues }) =>
    report({ event: 'sampled', holder: config.holder, turn, queues }),
  onError: (error) => report({ event: 'error', message: String(error) }),
});
sampler.start();
report({ event: 'ready', pid: process.pid });
process.once('SIGTERM', () => {
  void sampler
    .stop()
    .then(() => client.quit())
    .finally(() => process.exit(0));
});
