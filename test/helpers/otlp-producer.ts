/**
 * A producer service as a team would write one, for the OTLP test: it starts the OpenTelemetry
 * Node SDK from nothing but the OTEL_* environment, adds jobs with the engine, flushes its spans
 * and exits. Run as `node --import tsx test/helpers/otlp-producer.ts` with REDIS_URL,
 * OXMQ_PREFIX and the queue names in PRODUCER_QUEUES (JSON); prints the added job ids as JSON.
 */
import { trace } from '@opentelemetry/api';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { FlowProducer, Queue } from 'oxmq';

interface Queues {
  hop: string;
  flaky: string;
  flowParent: string;
  flowChild: string;
}

async function main(): Promise<void> {
  const sdk = new NodeSDK();
  sdk.start();
  const connection = process.env.REDIS_URL!;
  const prefix = process.env.OXMQ_PREFIX!;
  const names = JSON.parse(process.env.PRODUCER_QUEUES!) as Queues;
  const hop = new Queue(names.hop, { connection, prefix });
  const flaky = new Queue(names.flaky, { connection, prefix });
  const flows = new FlowProducer({ connection, prefix });

  const tracer = trace.getTracer('producer-service');
  const ids = await tracer.startActiveSpan('producer request', async (span) => {
    const first = await hop.add('hop', { step: 1 });
    const retried = await flaky.add('flaky', {}, { attempts: 2, backoff: 50 });
    const flow = await flows.add({
      name: 'assemble',
      queueName: names.flowParent,
      children: [
        { name: 'part', queueName: names.flowChild, data: { n: 1 } },
        { name: 'part', queueName: names.flowChild, data: { n: 2 } },
      ],
    });
    span.end();
    return {
      requestSpanId: span.spanContext().spanId,
      hop: first.id,
      flaky: retried.id,
      flowParent: flow.job.id,
      flowChildren: flow.children!.map((child) => child.job.id),
    };
  });
  await Promise.all([hop.close(), flaky.close(), flows.close()]);
  await sdk.shutdown();
  process.stdout.write(JSON.stringify(ids));
}

main().catch((error: unknown) => {
  process.stderr.write(String(error instanceof Error ? error.stack : error));
  process.exit(1);
});
