/**
 * Tracing off (no OpenTelemetry SDK registered, the default): the engine starts no span at all,
 * writes no trace context of its own, loads no SDK module, and still carries a context a
 * producer gave explicitly, down a flow's tree too.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { ProxyTracer } from '@opentelemetry/api';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { FlowProducer, Queue, Worker } from 'oxmq';
import { useCleanup } from '../helpers/cleanup';
import { rawClient, redisOptions, uniqueQueueName, waitFor } from '../helpers/redis';

const track = useCleanup();
const conn = () => ({ connection: redisOptions() });
afterEach(() => vi.restoreAllMocks());

describe('tracing off', () => {
  it('adding and processing jobs starts no span and writes no context', async () => {
    const startSpan = vi.spyOn(ProxyTracer.prototype, 'startSpan');
    const name = uniqueQueueName('untraced');
    const queue = track(new Queue(name, conn()));
    let done = 0;
    track(
      new Worker(
        name,
        async () => {
          done += 1;
          if (done === 1) throw new Error('once');
          return 'ok';
        },
        conn(),
      ),
    );
    const job = await queue.add('plain', {}, { attempts: 2 });
    await queue.addBulk([{ name: 'bulk', data: {} }]);
    await waitFor(() => done >= 3);
    expect(startSpan).not.toHaveBeenCalled();
    const redis = track(rawClient());
    const [traceparent, opts] = await redis.hmget(`bull:${name}:${job.id}`, 'traceparent', 'opts');
    expect(traceparent).toBeNull();
    expect(JSON.parse(opts!)).not.toHaveProperty('tm');
  });

  it('a flow’s children carry the root’s explicit traceparent', async () => {
    const producer = track(new FlowProducer(conn()));
    const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    const tree = await producer.add({
      name: 'root',
      queueName: uniqueQueueName('untraced-flow'),
      opts: { traceparent },
      children: [
        {
          name: 'mid',
          queueName: uniqueQueueName('untraced-flow'),
          children: [{ name: 'leaf', queueName: uniqueQueueName('untraced-flow') }],
        },
      ],
    });
    const redis = track(rawClient());
    const leaf = tree.children![0]!.children![0]!.job;
    expect(await redis.hget(`bull:${leaf.queueName}:${leaf.id}`, 'traceparent')).toBe(traceparent);
    expect(tree.children![0]!.job.traceparent).toBe(traceparent);
  });

  it('importing and using the engine loads no OpenTelemetry SDK module', async () => {
    const script = `
      const engine = require('oxmq');
      const queue = new engine.Queue('import-check', { connection: { lazyConnect: true } });
      void queue;
      const loaded = Object.keys(require.cache).filter((file) => /@opentelemetry[\\\\/]sdk-/.test(file));
      const api = Object.keys(require.cache).some((file) => /@opentelemetry[\\\\/]api[\\\\/]/.test(file));
      process.stdout.write(JSON.stringify({ loaded, api }));
      process.exit(0);
    `;
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', '-e', script],
      { cwd: process.cwd() },
    );
    const result = JSON.parse(stdout) as { loaded: string[]; api: boolean };
    expect(result.api).toBe(true); // the check sees node_modules at all
    expect(result.loaded).toEqual([]);
  });
});
