/**
 * Tracing through the global OpenTelemetry API with a real SDK (NodeTracerProvider, spans kept
 * in memory): producer and consumer spans, their parent/child links across queues, the
 * processor's own spans nested under the consumer span, retries and failures, flows, addBulk,
 * BatchWorker, and jobs written by bullmq with only its `tm` metadata.
 */
import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { Queue as BullQueue } from 'bullmq';
import { BullMQOtel } from 'bullmq-otel';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import {
  BatchWorker,
  DelayedError,
  FlowProducer,
  Queue,
  RateLimitError,
  WaitingChildrenError,
  Worker,
  type Job,
} from 'oxmq';
import { useCleanup } from '../helpers/cleanup';
import { rawClient, redisOptions, uniqueQueueName, waitFor } from '../helpers/redis';
import { parentSpanId, registerTracing } from '../helpers/tracing';

const tracing = registerTracing();
afterAll(() => tracing.stop());
beforeEach(() => tracing.reset());

const track = useCleanup();
const conn = () => ({ connection: redisOptions() });
const userTracer = trace.getTracer('user-code');

function only(spans: ReadableSpan[], what: string): ReadableSpan {
  expect(spans, what).toHaveLength(1);
  return spans[0]!;
}

async function waitForSpan(name: string, count = 1): Promise<ReadableSpan[]> {
  await waitFor(() => tracing.named(name).length >= count);
  return tracing.named(name);
}

describe('producer and consumer spans', () => {
  it('a request span → send → process → user span, then a second queue in the same trace', async () => {
    const first = uniqueQueueName('trace-a');
    const second = uniqueQueueName('trace-b');
    const queueA = track(new Queue(first, conn()));
    const queueB = track(new Queue(second, conn()));
    track(
      new Worker(
        first,
        async (job: Job) => {
          await userTracer.startActiveSpan('user work', async (span) => {
            await queueB.add('next', { from: job.id });
            span.end();
          });
          return 'ok';
        },
        conn(),
      ),
    );
    track(new Worker(second, async () => 'done', conn()));

    let requestSpanId = '';
    let traceId = '';
    const job = await userTracer.startActiveSpan('http request', async (span) => {
      requestSpanId = span.spanContext().spanId;
      traceId = span.spanContext().traceId;
      const added = await queueA.add('first', { n: 1 });
      span.end();
      return added;
    });

    const [processB] = await waitForSpan(`process ${second}`);
    // The first job's span ends after its completion call returns, which can be after the
    // second job (added inside it) finished.
    await waitForSpan(`process ${first}`);
    const sendA = only(tracing.named(`send ${first}`), 'send span of the first queue');
    const processA = only(tracing.named(`process ${first}`), 'process span of the first queue');
    const userSpan = only(tracing.named('user work'), 'the processor’s own span');
    const sendB = only(tracing.named(`send ${second}`), 'send span of the second queue');

    for (const span of [sendA, processA, userSpan, sendB, processB!]) {
      expect(span.spanContext().traceId).toBe(traceId);
    }
    expect(sendA.kind).toBe(SpanKind.PRODUCER);
    expect(parentSpanId(sendA)).toBe(requestSpanId);
    expect(processA.kind).toBe(SpanKind.CONSUMER);
    expect(parentSpanId(processA)).toBe(sendA.spanContext().spanId);
    expect(parentSpanId(userSpan)).toBe(processA.spanContext().spanId);
    expect(parentSpanId(sendB)).toBe(userSpan.spanContext().spanId);
    expect(parentSpanId(processB!)).toBe(sendB.spanContext().spanId);

    // The job stores the producer span's context; bullmq's `tm` carries the same headers.
    const redis = track(rawClient());
    const stored = await redis.hmget(`bull:${first}:${job.id}`, 'traceparent', 'opts');
    expect(stored[0]).toBe(`00-${traceId}-${sendA.spanContext().spanId}-01`);
    expect(JSON.parse(stored[1]!).tm).toBe(JSON.stringify({ traceparent: stored[0] }));

    expect(sendA.attributes).toMatchObject({
      'messaging.system': 'oxmq',
      'messaging.destination.name': first,
      'messaging.operation.type': 'send',
      'messaging.operation.name': 'add',
      'messaging.message.id': job.id,
      'oxmq.job.name': 'first',
    });
    expect(processA.attributes).toMatchObject({
      'messaging.destination.name': first,
      'messaging.operation.type': 'process',
      'messaging.message.id': job.id,
      'oxmq.job.name': 'first',
      'oxmq.job.attempt': 1,
      'oxmq.job.outcome': 'completed',
      'oxmq.queue.prefix': 'bull',
    });
  });

  it('a job added outside any span starts its own trace; the worker loop never chains jobs', async () => {
    const name = uniqueQueueName('trace-roots');
    const queue = track(new Queue(name, conn()));
    track(new Worker(name, async () => 1, conn()));
    await queue.add('one', {});
    await queue.add('two', {});
    const processed = await waitForSpan(`process ${name}`, 2);
    const sends = tracing.named(`send ${name}`);
    expect(sends.map(parentSpanId)).toEqual([undefined, undefined]);
    expect(new Set(processed.map((span) => span.spanContext().traceId)).size).toBe(2);
  });

  it('an explicit traceparent option is the producer span’s parent', async () => {
    const name = uniqueQueueName('trace-explicit');
    const queue = track(new Queue(name, conn()));
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    await queue.add('x', {}, { traceparent: `00-${traceId}-00f067aa0ba902b7-01` });
    const send = only(tracing.named(`send ${name}`), 'send span');
    expect(send.spanContext().traceId).toBe(traceId);
    expect(parentSpanId(send)).toBe('00f067aa0ba902b7');
  });

  it('addBulk: one producer span whose context every job carries', async () => {
    const name = uniqueQueueName('trace-bulk');
    const queue = track(new Queue(name, conn()));
    const jobs = await queue.addBulk([
      { name: 'a', data: {} },
      { name: 'b', data: {} },
      { name: 'c', data: {} },
    ]);
    const send = only(tracing.named(`send ${name}`), 'one span for the bulk');
    expect(send.attributes['messaging.batch.message_count']).toBe(3);
    const expected = `00-${send.spanContext().traceId}-${send.spanContext().spanId}-01`;
    expect(jobs.map((job) => job.traceparent)).toEqual([expected, expected, expected]);
  });
});

describe('failures, retries and moves', () => {
  it('a retry is a span event; every failed attempt is an ERROR span with the exception', async () => {
    const name = uniqueQueueName('trace-retry');
    const queue = track(new Queue(name, conn()));
    track(
      new Worker(
        name,
        async () => {
          throw new Error(`boom ${'x'.repeat(5000)}`);
        },
        conn(),
      ),
    );
    await queue.add('flaky', {}, { attempts: 2, backoff: 10 });
    const spans = await waitForSpan(`process ${name}`, 2);
    const [firstTry, lastTry] = spans.sort(
      (a, b) => Number(a.attributes['oxmq.job.attempt']) - Number(b.attributes['oxmq.job.attempt']),
    );
    expect(firstTry!.attributes['oxmq.job.outcome']).toBe('retried');
    const retry = firstTry!.events.find((event) => event.name === 'oxmq.job.retry');
    expect(retry?.attributes).toMatchObject({ 'oxmq.job.delay_ms': 10, 'oxmq.job.attempt': 1 });
    expect(lastTry!.attributes['oxmq.job.outcome']).toBe('failed');
    for (const span of [firstTry!, lastTry!]) {
      expect(span.status.code).toBe(SpanStatusCode.ERROR);
      const exception = span.events.find((event) => event.name === 'exception');
      const message = String(exception?.attributes?.['exception.message']);
      expect(message.startsWith('boom x')).toBe(true);
      expect(message.length).toBe(1024); // capped
    }
    expect(lastTry!.parentSpanContext?.spanId).toBe(firstTry!.parentSpanContext?.spanId);
  });

  it('the failure text on a span is redacted: status message, exception message and stack', async () => {
    const name = uniqueQueueName('trace-redact');
    const queue = track(new Queue(name, conn()));
    track(
      new Worker(
        name,
        async () => {
          throw new Error('login failed password=hunter2 via redis://:s3cret@cache:6379');
        },
        conn(),
      ),
    );
    await queue.add('login', {});
    const [span] = await waitForSpan(`process ${name}`);
    const exception = span!.events.find((event) => event.name === 'exception');
    const texts = [
      span!.status.message,
      exception?.attributes?.['exception.message'],
      exception?.attributes?.['exception.stacktrace'],
    ].map(String);
    for (const text of texts) {
      expect(text).toContain('login failed password=[redacted]');
      expect(text).not.toMatch(/hunter2|s3cret/);
    }
  });

  it('a processor that moves its job to delayed leaves an event and the "delayed" outcome', async () => {
    const name = uniqueQueueName('trace-delay');
    const queue = track(new Queue(name, conn()));
    let runs = 0;
    track(
      new Worker(
        name,
        async (job: Job, token?: string) => {
          runs += 1;
          if (runs > 1) return 'later';
          await job.moveToDelayed(Date.now() + 20, token);
          throw new DelayedError();
        },
        conn(),
      ),
    );
    await queue.add('later', {});
    const spans = await waitForSpan(`process ${name}`, 2);
    const moved = spans.find((span) => span.attributes['oxmq.job.outcome'] === 'delayed');
    expect(moved?.events.map((event) => event.name)).toContain('oxmq.job.delayed');
    expect(moved?.status.code).not.toBe(SpanStatusCode.ERROR);
    expect(spans.some((span) => span.attributes['oxmq.job.outcome'] === 'completed')).toBe(true);
  });
});

describe('flows', () => {
  it('every node of a flow is in the flow’s trace; the parent’s span links to its children', async () => {
    const parentQueue = uniqueQueueName('trace-flow-parent');
    const childQueue = uniqueQueueName('trace-flow-child');
    const producer = track(new FlowProducer(conn()));
    track(new Worker(childQueue, async (job: Job) => job.data.n, conn()));
    track(new Worker(parentQueue, async () => 'all done', conn()));
    const tree = await producer.add({
      name: 'parent',
      queueName: parentQueue,
      children: [
        { name: 'c1', queueName: childQueue, data: { n: 1 } },
        { name: 'c2', queueName: childQueue, data: { n: 2 } },
      ],
    });

    const [parentRun] = await waitForSpan(`process ${parentQueue}`);
    await waitForSpan(`process ${childQueue}`, 2); // their spans end after their completion calls
    const flowSpan = only(tracing.named(`send ${parentQueue}`), 'the flow’s send span');
    const creates = tracing.spans().filter((span) => span.name.startsWith('create '));
    expect(creates).toHaveLength(3);
    const traceId = flowSpan.spanContext().traceId;
    const childRuns = tracing.named(`process ${childQueue}`);
    expect(childRuns).toHaveLength(2);
    for (const span of [...creates, ...childRuns, parentRun!]) {
      expect(span.spanContext().traceId).toBe(traceId);
    }
    const createOf = (id: string) =>
      creates.find((span) => span.attributes['messaging.message.id'] === id)!;
    const parentCreate = createOf(tree.job.id);
    expect(parentSpanId(parentCreate)).toBe(flowSpan.spanContext().spanId);
    const childIds = tree.children!.map((node) => node.job.id);
    for (const id of childIds) {
      expect(parentSpanId(createOf(id))).toBe(parentCreate.spanContext().spanId);
    }
    expect(parentSpanId(parentRun!)).toBe(parentCreate.spanContext().spanId);
    const linked = parentRun!.links.map((link) => link.context.spanId).sort();
    expect(linked).toEqual(childIds.map((id) => createOf(id).spanContext().spanId).sort());
  });
});

describe('BatchWorker', () => {
  it('one span per batch, linked to each job’s producer span', async () => {
    const name = uniqueQueueName('trace-batch');
    const queue = track(new Queue(name, conn()));
    const jobs = await queue.addBulk([
      {
        name: 'a',
        data: {},
        opts: { traceparent: '00-11111111111111111111111111111111-1111111111111111-01' },
      },
      {
        name: 'b',
        data: {},
        opts: { traceparent: '00-22222222222222222222222222222222-2222222222222222-01' },
      },
    ]);
    track(
      new BatchWorker(name, async (batch: Job[]) => batch.map(() => 'ok'), {
        ...conn(),
        batchSize: 10,
      }),
    );
    const [batchSpan] = await waitForSpan(`process ${name}`);
    expect(batchSpan!.attributes['oxmq.batch.size']).toBe(2);
    expect(batchSpan!.attributes['messaging.operation.name']).toBe('processBatch');
    expect(batchSpan!.links.map((link) => link.context.traceId).sort()).toEqual(
      jobs.map((job) => job.traceparent!.split('-')[1]).sort(),
    );
  });
});

describe('jobs written by bullmq', () => {
  it('a bullmq job with only `tm` metadata is continued by an OxMQ worker', async () => {
    const name = uniqueQueueName('trace-bullmq-tm');
    const bull = track(new BullQueue(name, conn()));
    const traceId = 'aaaabbbbccccddddeeeeffff00001111';
    const metadata = JSON.stringify({ traceparent: `00-${traceId}-1234567890abcdef-01` });
    await bull.add('from-bullmq', { x: 1 }, { telemetry: { metadata } });
    track(new Worker(name, async () => 'ok', conn()));
    const [run] = await waitForSpan(`process ${name}`);
    expect(run!.spanContext().traceId).toBe(traceId);
    expect(parentSpanId(run!)).toBe('1234567890abcdef');
  });

  it('bullmq reads the `tm` OxMQ writes as its own telemetry metadata', async () => {
    const name = uniqueQueueName('trace-bullmq-read');
    const queue = track(new Queue(name, conn()));
    const job = await queue.add('for-bullmq', {});
    const bull = track(new BullQueue(name, conn()));
    const read = await bull.getJob(job.id);
    expect(read?.opts.telemetry?.metadata).toBe(JSON.stringify({ traceparent: job.traceparent }));
  });
});

describe('bullmq’s telemetry option', () => {
  it('bullmq-otel passed as `telemetry` traces add → process through its metadata', async () => {
    const name = uniqueQueueName('trace-bullmq-otel');
    const telemetry = new BullMQOtel({ tracerName: 'ported-code' });
    const queue = track(new Queue(name, { ...conn(), telemetry }));
    track(new Worker(name, async () => 'ok', { ...conn(), telemetry }));
    const job = await queue.add('ported', {});
    const [run] = await waitForSpan(`process ${name}`);
    const send = only(tracing.named(`send ${name}`), 'send span');
    expect(send.instrumentationScope.name).toBe('ported-code');
    expect(run!.spanContext().traceId).toBe(send.spanContext().traceId);
    expect(parentSpanId(run!)).toBe(send.spanContext().spanId);
    // The metadata is bullmq-otel's own serialization, kept as `tm`, plus OxMQ's fields.
    expect(job.opts.telemetry?.metadata).toBe(JSON.stringify({ traceparent: job.traceparent }));
    expect(job.traceparent).toBe(
      `00-${send.spanContext().traceId}-${send.spanContext().spanId}-01`,
    );
  });

  it('bullmq-otel spans get the failure text redacted too', async () => {
    const name = uniqueQueueName('trace-bullmq-redact');
    const telemetry = new BullMQOtel({ tracerName: 'ported-code' });
    const queue = track(new Queue(name, { ...conn(), telemetry }));
    track(
      new Worker(
        name,
        async () => {
          throw new Error('login failed password=hunter2');
        },
        { ...conn(), telemetry },
      ),
    );
    await queue.add('ported', {});
    const [run] = await waitForSpan(`process ${name}`);
    const exception = run!.events.find((event) => event.name === 'exception');
    expect(String(exception?.attributes?.['exception.message'])).toBe(
      'login failed password=[redacted]',
    );
    expect(String(exception?.attributes?.['exception.stacktrace'])).not.toContain('hunter2');
  });

  it('a telemetry object without the interface is refused before anything connects', () => {
    expect(() => new Queue('x', { ...conn(), telemetry: { tracer: {} } as never })).toThrow(
      /telemetry needs a tracer/,
    );
  });
});

describe('moves, stalls and foreign input', () => {
  it('a rate-limited attempt and a wait for children are events, not stalls', async () => {
    const name = uniqueQueueName('trace-moves');
    const children = uniqueQueueName('trace-moves-child');
    const queue = track(new Queue(name, conn()));
    const childQueue = track(new Queue(children, conn()));
    let limited = false;
    track(new Worker(children, async () => 'child done', conn()));
    track(
      new Worker(
        name,
        async (job: Job, token?: string) => {
          if (job.name === 'limited' && !limited) {
            limited = true;
            await queue.rateLimit(50);
            throw new RateLimitError();
          }
          if (job.name === 'parent' && job.data.step === undefined) {
            // Delayed, so the parent is parked before its child can finish.
            await childQueue.add(
              'c',
              {},
              { delay: 300, parent: { id: job.id, queue: job.queueQualifiedName } },
            );
            await job.updateData({ step: 'waiting' });
            if (await job.moveToWaitingChildren(token!)) throw new WaitingChildrenError();
          }
          return 'ok';
        },
        conn(),
      ),
    );
    await queue.add('limited', {});
    await queue.add('parent', {});
    const spans = await waitForSpan(`process ${name}`, 4);
    const byOutcome = (outcome: string) =>
      spans.filter((span) => span.attributes['oxmq.job.outcome'] === outcome);
    const [rateLimited] = byOutcome('rate-limited');
    expect(rateLimited?.events.map((event) => event.name)).toContain('oxmq.job.rate_limited');
    const [parked] = byOutcome('waiting-children');
    expect(parked?.events.map((event) => event.name)).toContain('oxmq.job.waiting_children');
    expect(byOutcome('completed')).toHaveLength(2);
    // A restart for these reasons is no stall: no stall span anywhere.
    expect(tracing.named(`stalled ${name}`)).toEqual([]);
  });

  it('a stalled job gets a span in its own trace', async () => {
    const name = uniqueQueueName('trace-stall');
    const queue = track(new Queue(name, conn()));
    const redis = track(rawClient());
    // Added (traced), then put in active with no lock, as a worker that died leaves it.
    const job = await queue.add('stuck', {}, { delay: 60_000 });
    await redis
      .multi()
      .zrem(`bull:${name}:delayed`, job.id)
      .lpush(`bull:${name}:active`, job.id)
      .exec();
    track(new Worker(name, async () => 'ok', { ...conn(), stalledInterval: 200 }));
    const [stall] = await waitForSpan(`stalled ${name}`);
    const send = only(tracing.named(`send ${name}`), 'send span');
    expect(stall!.spanContext().traceId).toBe(send.spanContext().traceId);
    expect(parentSpanId(stall!)).toBe(send.spanContext().spanId);
    expect(stall!.events.map((event) => event.name)).toEqual(['oxmq.job.stalled']);
    expect(stall!.attributes['messaging.message.id']).toBe(job.id);
  });

  it('jobs another writer got wrong still run; a bad tracestate alone keeps the parent', async () => {
    const name = uniqueQueueName('trace-foreign');
    const redis = track(rawClient());
    const queue = track(new Queue(name, conn()));
    const parentId = 'abcdefabcdefabcdefabcdefabcdef12';
    const jobs = await queue.addBulk([
      { name: 'bad-parent', data: {} },
      { name: 'bad-state', data: {} },
      { name: 'bad-tm', data: {} },
      { name: 'bad-children', data: {} },
    ]);
    const key = (index: number) => `bull:${name}:${jobs[index]!.id}`;
    await redis.hset(key(0), 'traceparent', 'garbage');
    await redis.hset(key(1), 'traceparent', `00-${parentId}-1234567812345678-01`);
    await redis.hset(key(1), 'tracestate', 'BAD KEY=1');
    await redis.hdel(key(2), 'traceparent');
    await redis.hset(key(2), 'opts', JSON.stringify({ attempts: 0, tm: '{not json' }));
    await redis.hset(key(3), 'childTraceparents', '[1,2]');
    let completed = 0;
    const worker = track(new Worker(name, async () => 'ran', conn()));
    worker.on('completed', () => (completed += 1));
    await waitFor(() => completed === 4);
    const runs = tracing.named(`process ${name}`);
    const badState = runs.find((span) => span.attributes['oxmq.job.name'] === 'bad-state')!;
    expect(badState.spanContext().traceId).toBe(parentId);
    expect(parentSpanId(badState)).toBe('1234567812345678');
  });

  it('omitContext keeps the producer’s context out of the job', async () => {
    const name = uniqueQueueName('trace-omit');
    const queue = track(new Queue(name, conn()));
    const job = await queue.add('private', {}, { telemetry: { omitContext: true } });
    expect(tracing.named(`send ${name}`)).toHaveLength(1);
    const redis = track(rawClient());
    const [traceparent, opts] = await redis.hmget(`bull:${name}:${job.id}`, 'traceparent', 'opts');
    expect(traceparent).toBeNull();
    expect(JSON.parse(opts!)).toMatchObject({ omc: true });
    expect(JSON.parse(opts!)).not.toHaveProperty('tm');
  });

  it('a single add stores its span’s metadata as `tm`, the caller’s metadata being its parent', async () => {
    const name = uniqueQueueName('trace-metadata');
    const queue = track(new Queue(name, conn()));
    const callerTrace = '0123456789abcdef0123456789abcdef';
    const metadata = JSON.stringify({ traceparent: `00-${callerTrace}-0123456789abcdef-01` });
    const job = await queue.add('m', {}, { telemetry: { metadata } });
    const send = only(tracing.named(`send ${name}`), 'send span');
    expect(send.spanContext().traceId).toBe(callerTrace);
    expect(job.opts.telemetry?.metadata).toBe(JSON.stringify({ traceparent: job.traceparent }));
    expect(job.traceparent).toContain(send.spanContext().spanId);
  });
});
