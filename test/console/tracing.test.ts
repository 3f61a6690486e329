/**
 * The console traces with nothing but the OTEL_* variables: instrumentation.ts starts the Node
 * SDK, and a job added through the console's API is a producer span exported over OTLP/HTTP,
 * whose context the job carries.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Queue } from 'oxmq';
import type { JobActionResponse } from '../../lib/api-types';
import { startOtlpReceiver, OTLP_KIND, type OtlpReceiver } from '../helpers/otlp-receiver';
import { redisOptions, uniqueQueueName, waitFor } from '../helpers/redis';
import { signIn } from './console-client';
import { startConsole, type ConsoleServer } from './console-server';
import { consoleEnv, OPERATOR } from './users';

let receiver: OtlpReceiver;
let server: ConsoleServer;

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  server = await startConsole(
    consoleEnv(inject('redisPort'), {
      OTEL_TRACES_EXPORTER: 'otlp',
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_BSP_SCHEDULE_DELAY: '100',
    }),
  );
});

afterAll(async () => {
  await server.stop();
  await receiver.close();
});

describe('console tracing', () => {
  it('a job added through the API is a producer span of service oxmq-console', async () => {
    const name = uniqueQueueName('console-traced');
    const operator = await signIn(server.url, OPERATOR);
    const response = await operator.post(`/api/queues/bull/${name}/jobs`, {
      name: 'from-console',
      data: { n: 1 },
    });
    expect(response.status, await response.clone().text()).toBe(200);
    const { id } = (await response.json()) as JobActionResponse;

    const send = (await waitFor(() =>
      receiver.spans().find((span) => span.name === `send ${name}`),
    ))!;
    expect(send).toMatchObject({ service: 'oxmq-console', kind: OTLP_KIND.producer });
    expect(send.attributes['messaging.message.id']).toBe(id);
    const queue = new Queue(name, { connection: redisOptions() });
    try {
      const job = await queue.getJob(id!);
      expect(job?.traceparent).toBe(`00-${send.traceId}-${send.spanId}-01`);
    } finally {
      await queue.obliterate({ force: true });
      await queue.close();
    }
  });
});
