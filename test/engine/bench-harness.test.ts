/**
 * The benchmark harness's own pure parts (bench/stats.ts, bench/summary.ts, bench/scenarios.ts):
 * medians, the A B A B order, INFO parsing, and the exact-delivery checker catching a duplicate,
 * a missing job and orphans. No Redis, no timing assertions.
 */
import { describe, expect, it } from 'vitest';
import {
  benchFlow,
  flattenFlow,
  flowNodeCount,
  flowOrderProblems,
  flowParentCount,
  type BenchFlow,
  type BenchFlowNode,
} from '../../bench/flow-tree';
import { SCENARIOS, paramsFor } from '../../bench/scenarios';
import {
  alternationOrder,
  checkDelivery,
  counterDelta,
  median,
  percentile,
  ratio,
  redisCounters,
  type DeliveryInput,
} from '../../bench/stats';
import { formatTable, summarize, type RoundResult } from '../../bench/summary';

const NONE = { wait: 0, active: 0, completed: 0, failed: 0 };

function delivered(overrides: Partial<DeliveryInput> = {}): DeliveryInput {
  return {
    added: ['1', '2', '3'],
    processed: ['1', '2', '3'],
    jobHashes: ['1', '2', '3'],
    keepCompleted: true,
    counts: { ...NONE, completed: 3 },
    expectedCounts: { ...NONE, completed: 3 },
    ...overrides,
  };
}

describe('bench harness: statistics', () => {
  it('takes medians of odd and even counts and ignores non-finite values', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([5, NaN, 1, Infinity, 3])).toBe(3);
    expect(median([])).toBeNull();
  });

  it('takes nearest-rank percentiles', () => {
    const values = Array.from({ length: 100 }, (_, i) => i + 1);
    expect(percentile(values, 50)).toBe(50);
    expect(percentile(values, 99)).toBe(99);
    expect(percentile(values, 100)).toBe(100);
    expect(percentile([7], 99)).toBe(7);
    expect(percentile([], 50)).toBeNull();
  });

  it('ratios are null when a side is missing', () => {
    expect(ratio(130, 100)).toBe(1.3);
    expect(ratio(null, 100)).toBeNull();
    expect(ratio(100, 0)).toBeNull();
  });
});

describe('bench harness: run order', () => {
  it('runs a warm-up round, then alternates the libraries A B A B', () => {
    const order = alternationOrder(3);
    expect(order.map((slot) => `${slot.round}${slot.lib}${slot.warmup ? 'w' : ''}`)).toEqual([
      '0oxmqw',
      '0bullmqw',
      '1oxmq',
      '1bullmq',
      '2oxmq',
      '2bullmq',
      '3oxmq',
      '3bullmq',
    ]);
    expect(() => alternationOrder(0)).toThrow();
  });

  it('lists every method scenario, none of them skipped', () => {
    const names = SCENARIOS.map((s) => s.name);
    for (const name of [
      'add',
      'addBulk',
      'worker-c1',
      'worker-c100',
      'worker-c100-roc',
      'batch',
      'io-10k',
      'idle',
      'latency',
      'add-concurrent',
      'flow-add',
      'flow-process',
    ]) {
      expect(names).toContain(name);
    }
    for (const scenario of SCENARIOS) expect(scenario.skip, scenario.name).toBeUndefined();
    const batch = SCENARIOS.find((s) => s.name === 'batch')!;
    expect(batch.kind).toBe('batch');
    expect(paramsFor(batch, 'full', false)).toMatchObject({ batchSize: 100, concurrency: 100 });
    expect(
      paramsFor(
        SCENARIOS.find((s) => s.name === 'io-10k')!,
        'full',
        false,
      ),
    ).toMatchObject({
      jobs: 40_000,
      concurrency: 10_000,
    });
  });

  it('sizes the producer and flow scenarios, warm-up smaller than quick smaller than full', () => {
    const byName = (name: string) => SCENARIOS.find((s) => s.name === name)!;
    const concurrent = byName('add-concurrent');
    expect(concurrent.kind).toBe('addConcurrent');
    for (const mode of ['full', 'quick'] as const) {
      expect(paramsFor(concurrent, mode, false).producers).toBe(100);
    }
    expect(byName('flow-add').kind).toBe('flowAdd');
    expect(byName('flow-process').kind).toBe('flowProcess');
    expect(paramsFor(byName('flow-process'), 'full', false).concurrency).toBe(100);
    for (const name of ['flow-add', 'flow-process']) {
      const full = paramsFor(byName(name), 'full', false);
      const quick = paramsFor(byName(name), 'quick', false);
      const warm = paramsFor(byName(name), 'full', true);
      expect(flowNodeCount(full.flowShape)).toBe(100);
      expect(warm.flows).toBeGreaterThan(0);
      expect(warm.flows).toBeLessThan(quick.flows);
      expect(quick.flows).toBeLessThan(full.flows);
    }
  });
});

describe('bench harness: flows', () => {
  /** Ids as a library would return them: the node's path in the tree. */
  const created = (flow: BenchFlow): BenchFlowNode => {
    const id = (flow.data as { path: string }).path;
    return flow.children ? { id, children: flow.children.map(created) } : { id };
  };

  it('builds a 100-node tree of 1 root and 3 levels, all in the given queue', () => {
    expect(flowNodeCount([3, 4, 7])).toBe(100);
    expect(flowParentCount([3, 4, 7])).toBe(16);
    const flow = benchFlow('q', 5, [3, 4, 7]);
    const flat = flattenFlow(created(flow));
    expect(flat.ids).toHaveLength(100);
    expect(new Set(flat.ids).size).toBe(100);
    expect(flat.root).toBe('0');
    expect(flat.childrenOf.size).toBe(16);
    expect(flat.childrenOf.get('0')).toEqual(['0.0', '0.1', '0.2']);
    expect(flat.childrenOf.get('0.2.3')).toHaveLength(7);
    const queues = new Set<string>();
    const flows = new Set<unknown>();
    const walk = (node: BenchFlow, depth: number): number => {
      queues.add(node.queueName);
      flows.add((node.data as { flow: number }).flow);
      return Math.max(depth, ...(node.children ?? []).map((child) => walk(child, depth + 1)));
    };
    expect(walk(flow, 0)).toBe(3);
    expect([...queues]).toEqual(['q']);
    expect([...flows]).toEqual([5]);
  });

  it('catches a parent processed before all of its children', () => {
    const childrenOf = new Map([
      ['r', ['a', 'b']],
      ['a', ['a1']],
    ]);
    expect(flowOrderProblems(['a1', 'b', 'a', 'r'], childrenOf)).toEqual([]);
    expect(flowOrderProblems(['a1', 'a', 'r', 'b'], childrenOf).join()).toMatch(
      /parent run before its children: r \(1\)/,
    );
    expect(flowOrderProblems(['a', 'a1', 'b', 'r'], childrenOf).join()).toMatch(/: a \(1\)/);
  });
});

describe('bench harness: Redis counters', () => {
  it('sums commandstats calls and used CPU from INFO text', () => {
    const info = [
      '# CPU',
      'used_cpu_sys:1.500000',
      'used_cpu_user:0.250000',
      '# Commandstats',
      'cmdstat_evalsha:calls=10,usec=500,usec_per_call=50.00,rejected_calls=0,failed_calls=0',
      'cmdstat_hset:calls=32,usec=40,usec_per_call=1.25,rejected_calls=0,failed_calls=0',
    ].join('\r\n');
    const before = redisCounters(info);
    expect(before).toEqual({ cpuUs: 1_750_000, calls: 42, byCommand: { evalsha: 10, hset: 32 } });
    const after = redisCounters(info.replace('calls=10,', 'calls=15,'));
    expect(counterDelta(before, after)).toEqual({ cpuUs: 0, calls: 5, byCommand: { evalsha: 5 } });
  });
});

describe('bench harness: exact-delivery check', () => {
  it('passes exact delivery', () => {
    expect(checkDelivery(delivered())).toEqual([]);
  });

  it('catches a job processed twice', () => {
    const problems = checkDelivery(delivered({ processed: ['1', '2', '2', '3'] }));
    expect(problems.join()).toMatch(/more than once: 2/);
  });

  it('catches a job never processed', () => {
    const problems = checkDelivery(
      delivered({ processed: ['1', '3'], counts: { ...NONE, completed: 2, wait: 1 } }),
    );
    expect(problems.join()).toMatch(/never processed: 2/);
    expect(problems.join()).toMatch(/completed count 2, expected 3/);
    expect(problems.join()).toMatch(/wait count 1, expected 0/);
  });

  it('catches orphan hashes, lost hashes and leftover locks', () => {
    expect(checkDelivery(delivered({ jobHashes: ['1', '2', '3', '99'] })).join()).toMatch(
      /orphan job hashes: 99/,
    );
    expect(checkDelivery(delivered({ jobHashes: ['1', '3'] })).join()).toMatch(
      /job hashes missing: 2/,
    );
    expect(checkDelivery(delivered({ leftoverLocks: 2 })).join()).toMatch(/2 lock key/);
    // With removeOnComplete every remaining hash is an orphan.
    const roc = delivered({ keepCompleted: false, counts: NONE, expectedCounts: NONE });
    expect(checkDelivery({ ...roc, jobHashes: [] })).toEqual([]);
    expect(checkDelivery(roc).join()).toMatch(/orphan job hashes: 1, 2, 3/);
  });

  it('checks producer-only scenarios by hashes and counts', () => {
    const added = { added: ['1', '2'], processed: null, jobHashes: ['1', '2'] };
    const counts = { counts: { wait: 2 }, expectedCounts: { wait: 2 } };
    expect(checkDelivery(delivered({ ...added, ...counts }))).toEqual([]);
    expect(checkDelivery(delivered({ ...added, ...counts, added: ['1', '1'] })).join()).toMatch(
      /duplicate id/,
    );
  });
});

describe('bench harness: summary', () => {
  const run = (lib: 'oxmq' | 'bullmq', round: number, jobsPerSec: number): RoundResult => ({
    lib,
    round,
    jobs: 1_000,
    elapsedMs: 1_000,
    jobsPerSec,
    redis: { cpuUs: 50_000, calls: 24_000, byCommand: {} },
    problems: [],
    extra: {},
  });

  it('notes flows per second for the flow scenarios', () => {
    const flowRun = (lib: 'oxmq' | 'bullmq', round: number, flowsPerSec: number) => ({
      ...run(lib, round, flowsPerSec * 100),
      extra: { flows_per_s: flowsPerSec, nodes_per_flow: 100, client_cpu_us_per_job: 12.5 },
    });
    const runs = [1, 2, 3].flatMap((round) => [
      flowRun('oxmq', round, 30),
      flowRun('bullmq', round, 20),
    ]);
    const table = formatTable([summarize('flow-add', runs)]);
    expect(table).toContain('| flow-add | 3000 | 2000 | 1.5 |');
    expect(table).toContain(
      'jobs = flow nodes (100 per flow); flows/s 30 vs 20; client CPU µs/job 12.5 vs 12.5',
    );
  });

  it('takes medians over measured rounds only and prints a table row', () => {
    const runs = [
      run('oxmq', 0, 1),
      run('bullmq', 0, 1),
      ...[1, 2, 3].flatMap((round) => [run('oxmq', round, 100 * round), run('bullmq', round, 100)]),
    ];
    const { line } = summarize('worker-c100', runs);
    expect(line).toMatchObject({
      scenario: 'worker-c100',
      oxmq_jobs_s: 200,
      bullmq_jobs_s: 100,
      ratio: 2,
      oxmq_redis_cpu_us_per_job: 50,
      oxmq_cmds_per_job: 24,
      rounds: 3,
      delivery: 'ok',
    });
    const table = formatTable([
      summarize('worker-c100', runs),
      { scenario: 'batch', skipped: 'BatchWorker not implemented yet', runs: [] },
    ]);
    expect(table).toContain('| worker-c100 | 200 | 100 | 2 |');
    expect(table).toContain('skipped: BatchWorker not implemented yet');
  });

  it('reports a delivery problem of any round, warm-up included', () => {
    const bad = { ...run('oxmq', 0, 1), problems: ['never processed: 7 (1)'] };
    const summary = summarize('add', [bad, run('oxmq', 1, 1), run('bullmq', 1, 1)]);
    expect(summary.problems).toEqual(['oxmq round 0: never processed: 7 (1)']);
    expect(summary.line?.delivery).not.toBe('ok');
  });
});
