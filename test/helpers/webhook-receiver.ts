/**
 * A webhook receiver for notification tests: a node:http server on a free port of its own that
 * records every POST (its JSON body) and answers 200, or the statuses a test queues up. It can
 * stop listening (the next request is refused: ECONNREFUSED) and listen again on the same port.
 * Tests wait for requests as events (`next`), never for a fixed time.
 */
import { createServer, type Server } from 'node:http';
import { freePort } from '../setup/redis-server';

export interface ReceivedRequest {
  body: Record<string, unknown>;
  headers: Record<string, string | string[] | undefined>;
  /** What the receiver answered. */
  status: number;
}

export interface WebhookReceiver {
  readonly url: string;
  readonly port: number;
  readonly requests: readonly ReceivedRequest[];
  /** Answers the next requests with these statuses, in order; 200 afterwards. */
  answerNext(...statuses: number[]): void;
  /**
   * Resolves with the first request (already received or to come) that matches and that no
   * earlier `next` call took; rejects after `timeoutMs` (a bound on a broken test, not a wait).
   */
  next(match?: (request: ReceivedRequest) => boolean, timeoutMs?: number): Promise<ReceivedRequest>;
  /** Requests matching, so far. */
  matching(match: (request: ReceivedRequest) => boolean): ReceivedRequest[];
  /** Stops listening: connections are refused until up(). */
  down(): Promise<void>;
  /** Listens again, on the same port (nothing when it listens). */
  up(): Promise<void>;
  close(): Promise<void>;
}

export async function startWebhookReceiver(path = '/hook'): Promise<WebhookReceiver> {
  const port = await freePort();
  const requests: ReceivedRequest[] = [];
  const taken = new Set<ReceivedRequest>();
  const queued: number[] = [];
  const waiters: {
    match: (r: ReceivedRequest) => boolean;
    resolve: (r: ReceivedRequest) => void;
  }[] = [];
  let server: Server | null = null;

  const offer = (request: ReceivedRequest) => {
    const index = waiters.findIndex((waiter) => waiter.match(request));
    if (index < 0) return;
    const [waiter] = waiters.splice(index, 1);
    taken.add(request);
    waiter!.resolve(request);
  };

  const listen = () =>
    new Promise<void>((resolve, reject) => {
      if (server) return resolve();
      const next = createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (chunk: Buffer) => chunks.push(chunk));
        req.on('end', () => {
          const status = queued.shift() ?? 200;
          let body: Record<string, unknown> = {};
          try {
            body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
          } catch {
            body = { unparsable: Buffer.concat(chunks).toString('utf8') };
          }
          res.writeHead(status, { 'content-type': 'text/plain', connection: 'close' });
          res.end(status === 200 ? 'ok' : 'no');
          const request = { body, headers: req.headers, status };
          if (req.url !== path) return;
          requests.push(request);
          offer(request);
        });
      });
      next.once('error', reject);
      next.listen(port, '127.0.0.1', () => {
        server = next;
        resolve();
      });
    });

  const down = () =>
    new Promise<void>((resolve) => {
      const current = server;
      server = null;
      if (!current) return resolve();
      current.close(() => resolve());
      current.closeAllConnections();
    });

  await listen();
  return {
    url: `http://127.0.0.1:${port}${path}`,
    port,
    requests,
    answerNext: (...statuses) => queued.push(...statuses),
    next(match = () => true, timeoutMs = 30_000) {
      const found = requests.find((request) => !taken.has(request) && match(request));
      if (found) {
        taken.add(found);
        return Promise.resolve(found);
      }
      return new Promise((resolve, reject) => {
        const waiter = {
          match,
          resolve: (request: ReceivedRequest) => {
            clearTimeout(timer);
            resolve(request);
          },
        };
        const timer = setTimeout(() => {
          waiters.splice(waiters.indexOf(waiter), 1);
          reject(new Error(`no matching webhook request within ${timeoutMs} ms`));
        }, timeoutMs);
        waiters.push(waiter);
      });
    },
    matching: (match) => requests.filter(match),
    down,
    up: listen,
    close: down,
  };
}

/** A matcher for a generic-JSON notification of `event` about `queue` (and `kind`). */
export function notificationOf(event: string, queue?: string, kind?: string) {
  return (request: ReceivedRequest) =>
    request.body.event === event &&
    (queue === undefined || request.body.queue === queue) &&
    (kind === undefined || request.body.kind === kind);
}
