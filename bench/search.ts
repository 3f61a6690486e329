/**
 * `npm run bench:search [-- --sizes 100000,1000000] [-- --rounds 3]`: how long the console's
 * search takes to walk a whole state (engine/admin/job-scan.ts, what the streamed search route
 * runs), on a private redis-server, for bullmq-made waiting jobs of about 200 bytes of data with
 * one needle. Two walks per size and round:
 *   - far end: the needle is the newest job and the walk goes oldest first, so it must look at
 *     every job before it finds it (the worst case, and the time to finish any search);
 *   - near end: the same needle newest first, the default: the time to the first match;
 *   - no shortcut: a query every job's data shares the words of (`acct-99999999`, which matches
 *     none), so the first look at the stored text (engine/admin/search-prefilter.ts) lets every
 *     job through to a full parse: the slowest a walk of these jobs gets.
 * A benchmark, not a test: it prints medians, and docs/benchmarks.md keeps the figures.
 */
import { Queue as BullQueue } from 'bullmq';
import { Redis } from 'ioredis';
import { createAdmin } from 'oxmq/admin';
import { startRedis } from '../test/setup/redis-server';

interface Args {
  sizes: number[];
  rounds: number;
}

function parseArgs(argv: readonly string[]): Args {
  const args: Args = { sizes: [100_000, 1_000_000], rounds: 3 };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--sizes') args.sizes = (argv[++i] ?? '').split(',').map(Number).filter(Boolean);
    else if (arg === '--rounds') args.rounds = Math.max(1, parseInt(argv[++i] ?? '3', 10));
    else throw new Error(`unknown argument ${arg}`);
  }
  return args;
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
};

async function fill(port: number, name: string, size: number): Promise<void> {
  const producer = new BullQueue(name, { connection: { host: '127.0.0.1', port } });
  const pad = 'x'.repeat(150);
  for (let from = 0; from < size - 1; from += 5_000) {
    const count = Math.min(5_000, size - 1 - from);
    await producer.addBulk(
      Array.from({ length: count }, (_, i) => ({
        name: 'sync',
        data: { account: `acct-${from + i}`, region: 'eu-west', pad },
      })),
    );
  }
  await producer.add('sync', { account: 'needle-account', region: 'eu-west', pad });
  await producer.close();
}

/** ms until the walk yields a match (or ends), and how many jobs it had looked at by then. */
async function walk(
  client: Redis,
  name: string,
  order: 'newest' | 'oldest',
  query = 'needle-account',
): Promise<{ ms: number; scanned: number; found: boolean }> {
  const admin = createAdmin(client, { prefixes: ['bull'] });
  const started = performance.now();
  for await (const step of admin.jobs.scanRows('bull', name, {
    state: 'waiting',
    order,
    filter: { mode: 'text', query },
  })) {
    if (step.jobs.length > 0 || step.done) {
      return {
        ms: performance.now() - started,
        scanned: step.scanned,
        found: step.jobs.length > 0,
      };
    }
  }
  throw new Error('the walk ended without a last step');
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const server = await startRedis();
  const client = new Redis({ host: '127.0.0.1', port: server.port });
  try {
    for (const size of args.sizes) {
      const name = `search-bench-${size}`;
      const filling = performance.now();
      await fill(server.port, name, size);
      const bytes = await client.memory('USAGE', `bull:${name}:1`);
      const far: number[] = [];
      const near: number[] = [];
      const unshortcut: number[] = [];
      let scannedNear = 0;
      for (let round = 0; round < args.rounds; round++) {
        const last = await walk(client, name, 'oldest');
        if (!last.found || last.scanned !== size) throw new Error('the needle was not last');
        far.push(last.ms);
        const first = await walk(client, name, 'newest');
        near.push(first.ms);
        scannedNear = first.scanned;
        const none = await walk(client, name, 'oldest', 'acct-99999999');
        if (none.found || none.scanned !== size) throw new Error('the no-shortcut query matched');
        unshortcut.push(none.ms);
      }
      const result = {
        jobs: size,
        jobHashBytes: bytes,
        fillSeconds: Math.round((performance.now() - filling) / 100) / 10,
        farEndMs: Math.round(median(far)),
        farEndJobsPerSecond: Math.round(size / (median(far) / 1000)),
        nearEndMs: Math.round(median(near)),
        nearEndScanned: scannedNear,
        noShortcutMs: Math.round(median(unshortcut)),
        noShortcutJobsPerSecond: Math.round(size / (median(unshortcut) / 1000)),
        rounds: args.rounds,
      };
      console.log(JSON.stringify(result));
      await client.flushdb();
    }
  } finally {
    await client.quit();
    await server.stop();
  }
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
