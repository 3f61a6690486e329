/**
 * Traces on the wire: a producer service and the worker runner, configured with nothing but the
 * standard OTEL_* variables, export spans over OTLP/HTTP (JSON) to a receiver this test runs.
 * One request's work crosses two processes and two queues as one trace; a flow's spans are one
 * trace with the parent's processing span linked to its children; a retry is a span event; the
 * processor's own span nests under the consumer span.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startOtlpReceiver,
  OTLP_KIND,
  type OtlpReceiver,
  type ReceivedSpan,
} from '../helpers/otlp-receiver';
import { redisUrl, uniqueQueueName, waitFor } from '../helpers/redis';
import { useRunners } from '../helpers/runner-process';

const startRunner = useRunners();
const repoRoot = path.resolve(__dirname, '..', '..');
let receiver: OtlpReceiver;
beforeAll(async () => {
  receiver = await startOtlpReceiver();
});
afterAll(() => receiver.close());

const otelEnv = (service: string) => ({
  OTEL_SERVICE_NAME: service,
  OTEL_TRACES_EXPORTER: 'otlp',
  OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
  OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
  OTEL_TRACES_SAMPLER: 'parentbased_always_on',
  OTEL_BSP_SCHEDULE_DELAY: '100',
  OTEL_METRICS_EXPORTER: 'none',
  OTEL_LOGS_EXPORTER: 'none',
});

/** Processor modules; the first queue's processor makes a span of its own and adds to the second. */
function modules(queues: Record<string, string>): Record<string, string> {
  const api = JSON.stringify(path.join(repoRoot, 'node_modules/@opentelemetry/api'));
  const engine = JSON.stringify(path.join(repoRoot, 'engine/index.ts'));
  return {
    'hop.ts': `
      import { trace } from ${api};
      import { Queue } from ${engine};
      export const queue = ${JSON.stringify(queues.hop)};
      let next;
      export default async (job) => {
        next ??= new Queue(${JSON.stringify(queues.next)}, { connection: process.env.REDIS_URL, prefix: job.prefix });
        return trace.getTracer('user-code').startActiveSpan('charge card', async (span) => {
          await next.add('next', { from: job.id });
          span.end();
          return 'hopped';
        });
      };
    `,
    'next.ts': `export const queue = ${JSON.stringify(queues.next)};
      export default async () => 'arrived';`,
    'flaky.ts': `export const queue = ${JSON.stringify(queues.flaky)};
      export default async (job) => {
        if (job.attemptsMade === 0) throw new Error('first attempt fails');
        return 'ok';
      };`,
    'flow-parent.ts': `export const queue = ${JSON.stringify(queues.flowParent)};
      export default async (job) => Object.keys(await job.getChildrenValues()).length;`,
    'flow-child.ts': `export const queue = ${JSON.stringify(queues.flowChild)};
      export default async (job) => job.data.n;`,
  };
}

describe('OTLP export with only OTEL_* variables', () => {
  it('producer → runner across two queues, a flow and a retry, as traces', async () => {
    const queues = {
      hop: uniqueQueueName('otlp-hop'),
      next: uniqueQueueName('otlp-next'),
      flaky: uniqueQueueName('otlp-flaky'),
      flowParent: uniqueQueueName('otlp-parent'),
      flowChild: uniqueQueueName('otlp-child'),
    };
    const runner = startRunner({ modules: modules(queues), env: otelEnv('otlp-worker') });
    await runner.ready();
    await runner.waitForLog((line) => line.msg === 'OpenTelemetry tracing on (OTEL_* variables)');

    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', 'test/helpers/otlp-producer.ts'],
      {
        cwd: repoRoot,
        encoding: 'utf8',
        env: {
          NODE_ENV: 'test' as const,
          PATH: process.env.PATH ?? '',
          REDIS_URL: redisUrl(),
          OXMQ_PREFIX: runner.prefix,
          PRODUCER_QUEUES: JSON.stringify(queues),
          ...otelEnv('otlp-producer'),
        },
      },
    );
    const ids = JSON.parse(stdout) as {
      requestSpanId: string;
      hop: string;
      flaky: string;
      flowParent: string;
      flowChildren: string[];
    };

    const named = (name: string) => receiver.spans().filter((span) => span.name === name);
    const one = (name: string): ReceivedSpan => {
      const spans = named(name);
      expect(spans, name).toHaveLength(1);
      return spans[0]!;
    };
    await waitFor(
      () =>
        named(`process ${queues.next}`).length === 1 &&
        // Each span ends after its job's completion call: the first hop's may come last.
        named(`process ${queues.hop}`).length === 1 &&
        named(`process ${queues.flowChild}`).length === 2 &&
        named(`process ${queues.flowParent}`).length === 1 &&
        named(`process ${queues.flaky}`).length === 2,
      20_000,
    );

    // Two processes, two queues, one trace: request → send → process → user span → send → process.
    const request = one('producer request');
    const sendHop = one(`send ${queues.hop}`);
    const processHop = one(`process ${queues.hop}`);
    const userSpan = one('charge card');
    const sendNext = one(`send ${queues.next}`);
    const processNext = one(`process ${queues.next}`);
    expect(request.spanId).toBe(ids.requestSpanId);
    expect(sendHop).toMatchObject({ service: 'otlp-producer', kind: OTLP_KIND.producer });
    expect(processHop).toMatchObject({ service: 'otlp-worker', kind: OTLP_KIND.consumer });
    for (const span of [sendHop, processHop, userSpan, sendNext, processNext]) {
      expect(span.traceId).toBe(request.traceId);
    }
    expect(sendHop.parentSpanId).toBe(request.spanId);
    expect(processHop.parentSpanId).toBe(sendHop.spanId);
    expect(userSpan.parentSpanId).toBe(processHop.spanId);
    expect(sendNext.parentSpanId).toBe(userSpan.spanId);
    expect(processNext.parentSpanId).toBe(sendNext.spanId);
    expect(processHop.attributes).toMatchObject({
      'messaging.system': 'oxmq',
      'messaging.destination.name': queues.hop,
      'messaging.operation.type': 'process',
      'messaging.message.id': ids.hop,
      'oxmq.job.outcome': 'completed',
    });

    // The retry: the first attempt's span failed with the exception and a retry event.
    const attempts = named(`process ${queues.flaky}`).sort(
      (a, b) => Number(a.attributes['oxmq.job.attempt']) - Number(b.attributes['oxmq.job.attempt']),
    );
    expect(attempts[0]!.statusCode).toBe(2);
    expect(attempts[0]!.events.map((event) => event.name)).toEqual(
      expect.arrayContaining(['exception', 'oxmq.job.retry']),
    );
    expect(attempts[1]!.attributes['oxmq.job.outcome']).toBe('completed');
    expect(attempts.every((span) => span.traceId === request.traceId)).toBe(true);

    // The flow: every span in the request's trace; the parent's run links to its children.
    const creates = receiver.spans().filter((span) => span.name === `create ${queues.flowChild}`);
    expect(creates).toHaveLength(2);
    const childRuns = named(`process ${queues.flowChild}`);
    const parentRun = one(`process ${queues.flowParent}`);
    for (const span of [...creates, ...childRuns, parentRun]) {
      expect(span.traceId).toBe(request.traceId);
    }
    expect(parentRun.links.map((link) => link.spanId).sort()).toEqual(
      creates.map((span) => span.spanId).sort(),
    );
    expect(childRuns.map((span) => span.parentSpanId).sort()).toEqual(
      creates.map((span) => span.spanId).sort(),
    );
  });
});
