/**
 * A server-sent-events reader over fetch for the API tests: it parses the stream as it arrives
 * and lets a test wait for the first message that matches. close() aborts the request, which is
 * exactly what a browser tab going away does to the server.
 */
import type { ConsoleClient } from './console-client';

export interface SseMessage {
  event: string;
  data: string;
}

export interface SseStream {
  readonly status: number;
  readonly messages: SseMessage[];
  /** Resolves with the first message (already received or future) matching `test`. */
  next(test: (message: SseMessage) => boolean, timeoutMs?: number): Promise<SseMessage>;
  /** Resolves when the stream has ended, whoever ended it. */
  readonly ended: Promise<void>;
  close(): void;
}

export async function openSse(client: ConsoleClient, path: string): Promise<SseStream> {
  const abort = new AbortController();
  const response = await client.raw(path, {
    method: 'GET',
    headers: { accept: 'text/event-stream' },
    signal: abort.signal,
  });
  const messages: SseMessage[] = [];
  const waiters = new Set<() => void>();
  let ended: Promise<void> = Promise.resolve();
  if (response.ok && response.body) {
    ended = (async () => {
      const decoder = new TextDecoder();
      let buffer = '';
      try {
        for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
          buffer += decoder.decode(chunk, { stream: true });
          for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
            const block = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            const message = parseBlock(block);
            if (message) messages.push(message);
          }
          for (const wake of waiters) wake();
        }
      } catch {
        // Aborted by close(): the stream simply ends.
      }
    })();
    ended.catch(() => undefined);
  }
  return {
    status: response.status,
    messages,
    ended,
    next(test, timeoutMs = 10_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = messages.find(test);
          if (!found) return;
          waiters.delete(check);
          clearTimeout(timer);
          resolve(found);
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(
            new Error(
              `no matching SSE message in ${timeoutMs} ms; got ${JSON.stringify(messages)}`,
            ),
          );
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    close: () => abort.abort(),
  };
}

function parseBlock(block: string): SseMessage | undefined {
  let event = 'message';
  const data: string[] = [];
  for (const line of block.split('\n')) {
    if (line.startsWith(':')) continue; // a comment: the heartbeat
    if (line.startsWith('event:')) event = line.slice(6).trim();
    else if (line.startsWith('data:')) data.push(line.slice(5).trimStart());
  }
  return data.length > 0 ? { event, data: data.join('\n') } : undefined;
}
