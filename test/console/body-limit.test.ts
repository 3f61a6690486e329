/**
 * A mutation body sent without Content-Length (`Transfer-Encoding: chunked`) is read only up to
 * the 64 KB limit: the console answers 413 while the client is still sending, instead of
 * buffering whatever arrives until the client stops.
 */
import { beforeAll, describe, expect, inject, it } from 'vitest';
import type { ApiError } from '../../lib/api-types';
import { Queue } from 'oxmq';
import { redisOptions, uniqueQueueName } from '../helpers/redis';
import { anonymousClient, signIn, type ConsoleClient } from './console-client';
import { streamBody, type StreamedOutcome } from './stream-body';
import { OPERATOR } from './users';

const baseUrl = inject('consoleUrl');
const queueName = uniqueQueueName('body');
const pausePath = `/api/queues/bull/${queueName}/pause`;
const LIMIT = 64 * 1024;
/** What the client sends at most before it ends the body itself: far past the limit. */
const CLIENT_CAP = 8 * 1024 * 1024;

let operator: ConsoleClient;
beforeAll(async () => {
  const queue = new Queue(queueName, { connection: redisOptions() });
  await queue.add('one', {});
  await queue.close();
  operator = await signIn(baseUrl, OPERATOR);
});

interface Outcome extends StreamedOutcome {
  body: ApiError;
}

/** A JSON body to the pause route, far past the limit unless the server answers first. */
async function streamPauseBody(cookie: string): Promise<Outcome> {
  const outcome = await streamBody({
    url: new URL(pausePath, baseUrl),
    headers: { 'content-type': 'application/json', origin: baseUrl, cookie },
    opening: '{"padding":"',
    closing: '"}',
    cap: CLIENT_CAP,
  });
  return { ...outcome, body: JSON.parse(outcome.text) as ApiError };
}

describe('request body limit', () => {
  it('answers 413 to a chunked body past 64 KB before the client has finished sending', async () => {
    const outcome = await streamPauseBody(operator.cookieHeader());
    expect(outcome.status).toBe(413);
    expect(outcome.body.code).toBe('PAYLOAD_TOO_LARGE');
    expect(outcome.sentBeforeAnswer).toBeGreaterThan(LIMIT);
    expect(outcome.sentBeforeAnswer).toBeLessThan(CLIENT_CAP);
  });

  it('answers 401 to a signed-out chunked body without reading it', async () => {
    const outcome = await streamPauseBody(anonymousClient(baseUrl).cookieHeader());
    expect(outcome.status).toBe(401);
    expect(outcome.sentBeforeAnswer).toBeLessThan(CLIENT_CAP);
  });

  it('still takes a small chunked body', async () => {
    const response = await operator.raw(pausePath, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: baseUrl },
      body: new ReadableStream({
        start(controller) {
          controller.enqueue(new TextEncoder().encode('{}'));
          controller.close();
        },
      }),
      duplex: 'half',
    } as RequestInit);
    expect(response.status).toBe(200);
  });
});
