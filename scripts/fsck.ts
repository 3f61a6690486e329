/**
 * `npm run fsck -- --queue <name> [--prefix bull] [--redis-url redis://...] [--budget n]
 * [--repair-safe]`: runs the read-only integrity checker (docs/integrity.md) over one queue to the
 * end, call after call with its cursor, and prints each invariant's count and sample ids. With
 * `--repair-safe` and findings, it then applies the safe repairs (docs/integrity.md, "Repairs"),
 * prints one line per repair, writes one entry to the console's audit log, checks again and prints
 * what remains. Exit code 0 when the queue is clean (after the repairs, if asked), 1 when an
 * invariant is (still) broken, 2 on a usage, settings or connection error. Without
 * `--redis-url` it connects as the console and the worker runner do (scripts/fsck-connection.ts):
 * a server, a Sentinel group's master or a Redis Cluster (a hash-tagged queue, checked on the
 * master that holds its slot).
 */
import { userInfo } from 'node:os';
import { parseArgs } from 'node:util';
import {
  appendAudit,
  checkQueueIntegrityToEnd,
  INVARIANTS,
  repairQueueIntegrityToEnd,
  type IntegrityReport,
  type RepairResult,
} from 'oxmq/admin';
import type { RedisClient } from '../config/redis-connection';
import { fsckClient, fsckTarget } from './fsck-connection';

const USAGE =
  'usage: npm run fsck -- --queue <name> [--prefix bull] [--redis-url redis://...] [--budget n] [--repair-safe]';
/** Applied repairs listed in the audit entry (the count is always complete). */
const AUDITED_REPAIRS = 100;

function print(report: IntegrityReport, queue: string): void {
  console.log(`queue ${queue}: ${report.clean ? 'clean' : 'NOT clean'}`);
  console.log(`examined ${report.scanned} ids and keys; unverified ${report.unverified}`);
  for (const invariant of INVARIANTS) {
    const samples = report.samples[invariant];
    const tail = samples.length > 0 ? `  e.g. ${samples.join(', ')}` : '';
    console.log(`  ${invariant.padEnd(20)} ${String(report.counts[invariant]).padStart(8)}${tail}`);
  }
}

function printRepair(repair: RepairResult): void {
  const outcome = repair.applied ? `applied: ${repair.action}` : `skipped: ${repair.skipped}`;
  console.log(`repair ${repair.code.padEnd(20)} ${(repair.jobId ?? '-').padEnd(12)} ${outcome}`);
}

function operator(): string {
  try {
    return userInfo().username;
  } catch {
    return 'unknown';
  }
}

/** Runs the safe repairs, then the check again; resolves with the report after the repairs. */
async function repair(
  client: RedisClient,
  queue: { prefix: string; name: string },
  budget: number | undefined,
): Promise<IntegrityReport> {
  const repairs = await repairQueueIntegrityToEnd(client, queue, { budget, onRepair: printRepair });
  const applied = repairs.filter((r) => r.applied);
  console.log(`repairs: ${applied.length} applied, ${repairs.length - applied.length} not`);
  await appendAudit(client, {
    actor: `fsck:${operator()}`,
    role: 'cli',
    action: 'queue.integrity.repair',
    target: `${queue.prefix}:${queue.name}`,
    params: {
      applied: applied.length,
      notApplied: repairs.length - applied.length,
      repairs: applied.slice(0, AUDITED_REPAIRS),
    },
    outcome: 'ok',
    // Not an HTTP request: no status was answered.
    status: 0,
  });
  const after = await checkQueueIntegrityToEnd(client, queue, { budget });
  console.log('after repairs:');
  return after;
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
        'repair-safe': { type: 'boolean', default: false },
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
  let client: RedisClient;
  try {
    client = fsckClient(fsckTarget(values['redis-url']));
  } catch (error) {
    console.error(`fsck: ${(error as Error).message}`);
    return 2;
  }
  // The connection's own error says why (ECONNREFUSED, NOAUTH ...); the command's only that it closed.
  let connectionError: Error | undefined;
  client.on('error', (error: Error) => (connectionError ??= error));
  try {
    await client.connect();
    const queue = { prefix: values.prefix, name: values.queue };
    const label = `${values.prefix}:${values.queue}`;
    const report = await checkQueueIntegrityToEnd(client, queue, { budget });
    print(report, label);
    if (report.clean || !values['repair-safe']) return report.clean ? 0 : 1;
    const after = await repair(client, queue, budget);
    print(after, label);
    return after.clean ? 0 : 1;
  } catch (error) {
    console.error(`fsck: ${(connectionError ?? (error as Error)).message}`);
    return 2;
  } finally {
    client.disconnect();
  }
}

main().then((code) => process.exit(code));
