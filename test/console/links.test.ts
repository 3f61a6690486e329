/**
 * Console links to the tools around it (OXMQ_TRACE_URL, OXMQ_GRAFANA_URL) over the API of the
 * shared console, which test/setup/console.ts starts with LINKS_ENV: the settings reach the
 * client with the queue list (as read-only mode does), a job's detail and every flow node carry
 * their trace viewer link, and a job without a trace has none.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { FlowProducer, Queue } from 'oxmq';
import type {
  FlowChildrenResponse,
  FlowGraphResponse,
  JobDetailResponse,
  QueueListResponse,
} from '../../lib/api-types';
import { grafanaOverviewHref, grafanaQueueHref, traceHref } from '../../lib/links';
import { redisOptions, uniqueQueueName } from '../helpers/redis';
import { signIn, type ConsoleClient } from './console-client';
import { GRAFANA_BASE, LINKS_ENV, traceUrlFor } from './links-env';
import { VIEWER } from './users';

const baseUrl = inject('consoleUrl');
const name = uniqueQueueName('links');
const queue = new Queue(name, { connection: redisOptions() });
const flows = new FlowProducer({ connection: redisOptions() });
const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const TRACEPARENT = `00-${TRACE_ID}-00f067aa0ba902b7-01`;
let viewer: ConsoleClient;

beforeAll(async () => {
  viewer = await signIn(baseUrl, VIEWER);
});

afterAll(async () => {
  await flows.close();
  await queue.close();
});

async function json<T>(response: Response): Promise<T> {
  expect(response.status).toBe(200);
  return (await response.json()) as T;
}

describe('link settings', () => {
  it('reach the client with the queue list, as given', async () => {
    await queue.waitUntilReady();
    const list = await json<QueueListResponse>(await viewer.get('/api/queues?pageSize=1'));
    expect(list.links).toEqual({
      traceUrl: LINKS_ENV.OXMQ_TRACE_URL,
      grafanaUrl: LINKS_ENV.OXMQ_GRAFANA_URL,
    });
  });

  it('build the Grafana dashboard links with the uids grafana/ provisions, values encoded', () => {
    expect(grafanaQueueHref(LINKS_ENV.OXMQ_GRAFANA_URL, '{pay}', 'a b&c')).toBe(
      `${GRAFANA_BASE}/d/oxmq-queue/oxmq-queue?var-prefix=%7Bpay%7D&var-queue=a%20b%26c`,
    );
    expect(grafanaOverviewHref(LINKS_ENV.OXMQ_GRAFANA_URL)).toBe(
      `${GRAFANA_BASE}/d/oxmq-overview/oxmq-overview`,
    );
    expect(grafanaQueueHref(null, 'bull', 'q')).toBeNull();
    expect(traceHref('https://t.example/{traceId}/x?id={traceId}', 'ab')).toBe(
      'https://t.example/ab/x?id=ab',
    );
    expect(traceHref(null, 'ab')).toBeNull();
  });
});

describe('trace links', () => {
  it("give a traced job's detail its trace viewer link, and an untraced one none", async () => {
    const traced = await queue.add('traced', {}, { traceparent: TRACEPARENT });
    const plain = await queue.add('plain', {});
    const detail = await json<JobDetailResponse>(
      await viewer.get(`/api/queues/bull/${name}/jobs/${traced.id}`),
    );
    expect(detail).toMatchObject({ traceId: TRACE_ID, traceUrl: traceUrlFor(TRACE_ID) });
    const untraced = await json<JobDetailResponse>(
      await viewer.get(`/api/queues/bull/${name}/jobs/${plain.id}`),
    );
    expect(untraced).toMatchObject({ traceId: null, traceUrl: null });
  });

  it('give every node of a traced flow its link, in the graph and in children pages', async () => {
    const fq = uniqueQueueName('links-flow');
    const tree = await flows.add({
      name: 'root',
      queueName: fq,
      opts: { traceparent: TRACEPARENT },
      children: [
        { name: 'kid', queueName: fq },
        { name: 'kid', queueName: fq },
      ],
    });
    const graph = await json<FlowGraphResponse>(
      await viewer.get(`/api/flows/bull/${fq}/${tree.job.id}?maxChildrenPerNode=1`),
    );
    expect(graph.graph.nodes.length).toBeGreaterThan(1);
    for (const node of graph.graph.nodes) {
      expect(node).toMatchObject({ traceId: TRACE_ID, traceUrl: traceUrlFor(TRACE_ID) });
    }
    const root = graph.graph.nodes[0]!;
    const query = new URLSearchParams({
      parentKey: root.key,
      cursor: root.childrenCursor!,
      level: '0',
    });
    const page = await json<FlowChildrenResponse>(
      await viewer.get(`/api/flows/children?${query.toString()}`),
    );
    expect(page.nodes.length).toBeGreaterThan(0);
    for (const node of page.nodes) expect(node.traceUrl).toBe(traceUrlFor(TRACE_ID));

    const untraced = await flows.add({ name: 'root', queueName: fq, children: [] });
    const bare = await json<FlowGraphResponse>(
      await viewer.get(`/api/flows/bull/${fq}/${untraced.job.id}`),
    );
    expect(bare.graph.nodes[0]).not.toHaveProperty('traceUrl');
  });
});
