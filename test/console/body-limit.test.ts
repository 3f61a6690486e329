/**
 * A mutation body sent without Content-Length (`Transfer-Encoding: chunked`) is read only up to
 * the 64 KB limit: the console answers 413 while the client is still sending, instead of
 * buffering whatever arrives until the client stops.
 */
import http from 'node:http';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import type { ApiError } from '../../lib/api-types';
import { Queue } from 'oxmq';
import { redisOptions, uniqueQueueName } from '../helpers/redis';
import { anonymousClient, signIn, type ConsoleClient } from './console-client';
import { OPERATOR } from './users';

const baseUrl = inject('consoleUrl');
const queueName = uniqueQueueName('body');
const pausePath = `/api/queues/bull/${queueName}/pause`;
const LIMIT = 64 * 1024;
const OPENING = '{"padding":"';
const CHUNK = 'x'.repeat(16 * 1024);
/** What the client sends at most before it ends the body itself: far past the limit. */
const CLIENT_CAP = 8 * 1024 * 1024;
const CLIENT_DEADLINE_MS = 20_000;

let operator: ConsoleClient;
beforeAll(async () => {
  const queue = new Queue(queueName, { connection: redisOptions() });
  await queue.add('one', {});
  await queue.close();
  operator = await signIn(baseUrl, OPERATOR);
});

interface Outcome {
  status: number;
  body: ApiError;
  /** Bytes written before the answer came (CLIENT_CAP: the server waited for the end). */
  sentBeforeAnswer: number;
}

/**
 * Streams a JSON body in chunks, without Content-Length, until the server answers or the cap is
 * reached (then it ends the body); bounded in bytes and time whatever the server does.
 */
function streamBody(cookie: string): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const url = new URL(pausePath, baseUrl);
    const request = http.request(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        origin: baseUrl,
        cookie,
        'transfer-encoding': 'chunked',
      },
    });
    let sent = OPENING.length;
    let answered = false;
    const deadline = setTimeout(
      () => request.destroy(new Error('no answer in time')),
      CLIENT_DEADLINE_MS,
    );
    request.on('response', (response) => {
      answered = true;
      const sentBeforeAnswer = sent;
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.on('end', () => {
        clearTimeout(deadline);
        request.destroy();
        resolve({
          status: response.statusCode ?? 0,
          body: JSON.parse(text) as ApiError,
          sentBeforeAnswer,
        });
      });
    });
    request.on('error', (error) => {
      clearTimeout(deadline);
      if (!answered) reject(error);
    });
    let ended = false;
    // One chunk per tick (about 1.6 MB/s), waiting while the socket pushes back: an answer
    // that comes after the first 64 KB overtakes the upload by far.
    const interval = setInterval(() => {
      if (answered || ended || request.destroyed) return clearInterval(interval);
      if (request.writableNeedDrain) return;
      if (sent >= CLIENT_CAP) {
        ended = true;
        request.end('"}');
        return;
      }
      sent += CHUNK.length;
      request.write(CHUNK);
    }, 10);
    request.write(OPENING);
  });
}

describe('request body limit', () => {
  it('answers 413 to a chunked body past 64 KB before the client has finished sending', async () => {
    const outcome = await streamBody(operator.cookieHeader());
    expect(outcome.status).toBe(413);
    expect(outcome.body.code).toBe('PAYLOAD_TOO_LARGE');
    expect(outcome.sentBeforeAnswer).toBeGreaterThan(LIMIT);
    expect(outcome.sentBeforeAnswer).toBeLessThan(CLIENT_CAP);
  });

  it('answers 401 to a signed-out chunked body without reading it', async () => {
    const outcome = await streamBody(anonymousClient(baseUrl).cookieHeader());
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
