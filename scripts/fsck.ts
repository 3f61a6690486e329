/**
 * `npm run fsck -- --queue <name> [--prefix bull] [--redis-url redis://...] [--budget n]`: runs
 * the read-only integrity checker (docs/integrity.md) over one queue to the end, call after call
 * with its cursor, and prints each invariant's count and sample ids. Exit code 0 when the queue
 * is clean, 1 when an invariant is broken, 2 on a usage or connection error. The Redis URL
 * defaults to REDIS_URL, then redis://127.0.0.1:6379; a single server only (the key scan does not
 * walk a Cluster's masters).
 */
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import { checkQueueIntegrityToEnd, INVARIANTS, type IntegrityReport } from 'oxmq/admin';

const USAGE =
  'usage: npm run fsck -- --queue <name> [--prefix bull] [--redis-url redis://...] [--budget n]';

function print(report: IntegrityReport, queue: string): void {
  console.log(`queue ${queue}: ${report.clean ? 'clean' : 'NOT clean'}`);
  console.log(`examined ${report.scanned} ids and keys; unverified ${report.unverified}`);
  for (const invariant of INVARIANTS) {
    const samples = report.samples[invariant];
    const tail = samples.length > 0 ? `  e.g. ${samples.join(', ')}` : '';
    console.log(`  ${invariant.padEnd(20)} ${String(report.counts[invariant]).padStart(8)}${tail}`);
  }
}

async function main(): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      options: {
        queue: { type: 'string' },
        prefix: { type: 'string', default: 'bull' },
        'redis-url': { type: 'string' },
        budget: { type: 'string' },
      },
    }));
  } catch (error) {
    console.error(`${(error as Error).message}\n${USAGE}`);
    return 2;
  }
  const budget = values.budget === undefined ? undefined : Number(values.budget);
  if (!values.queue || (budget !== undefined && !(Number.isSafeInteger(budget) && budget > 0))) {
    console.error(USAGE);
    return 2;
  }
  const url = values['redis-url'] ?? process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  const client = new Redis(url, {
    lazyConnect: true,
    maxRetriesPerRequest: 1,
    retryStrategy: () => null,
  });
  // The connection's own error says why (ECONNREFUSED, NOAUTH ...); the command's only that it closed.
  let connectionError: Error | undefined;
  client.on('error', (error: Error) => (connectionError ??= error));
  try {
    await client.connect();
    const report = await checkQueueIntegrityToEnd(
      client,
      { prefix: values.prefix, name: values.queue },
      { budget },
    );
    print(report, `${values.prefix}:${values.queue}`);
    return report.clean ? 0 : 1;
  } catch (error) {
    console.error(`fsck: ${(connectionError ?? (error as Error)).message}`);
    return 2;
  } finally {
    client.disconnect();
  }
}

main().then((code) => process.exit(code));
