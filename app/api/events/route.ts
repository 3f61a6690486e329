/**
 * GET /api/events: server-sent events fed by the queues' event streams. A read
 * (viewer role, not a mutation): the browser's EventSource cannot send a body or custom headers.
 * Messages: `ready` once the subscription holds cursors, `events` with LiveEventsMessage data,
 * and a comment heartbeat that keeps proxies from closing an idle stream. The stream ends when
 * its session does (checked at each heartbeat).
 */
import type { LiveEventsMessage } from '@/lib/api-types';
import { ApiProblem, withRoute } from '@/lib/server/api';
import { requestUser } from '@/lib/server/auth';
import { liveEventsHub } from '@/lib/server/live-events';
import { liveQueuesQuery, MAX_QUEUES_PER_SUBSCRIBER } from '@/lib/server/live-queues-param';
import { admin, configuredPrefixes } from '@/lib/server/oxmq';
import { streamQuota } from '@/lib/server/live-stream-quota';

export const dynamic = 'force-dynamic';

const HEARTBEAT_MS = 15_000;
/** How long the browser waits before reconnecting after the stream drops. */
const RETRY_MS = 5_000;

export const GET = withRoute(
  { role: 'viewer', query: liveQueuesQuery },
  async ({ request, query, user }) => {
    const prefixes = configuredPrefixes();
    const foreign = query.queues.find((queue) => !prefixes.includes(queue.prefix));
    if (foreign) {
      throw new ApiProblem(404, 'NOT_FOUND', `Prefix ${foreign.prefix} is not configured`);
    }
    // Only queues that exist: made-up names would take cursors (and the process's cap of
    // watched streams) from everyone else.
    const queues =
      query.queues.length > 0
        ? await admin().queues.existing(query.queues)
        : (await admin().queues.discover()).queues.slice(0, MAX_QUEUES_PER_SUBSCRIBER);
    const release = streamQuota().acquire(user.username);

    const encoder = new TextEncoder();
    let cleanup: (() => void) | undefined;
    const stream = new ReadableStream<Uint8Array>({
      async start(controller) {
        let closed = false;
        const write = (text: string) => {
          if (closed) return;
          try {
            controller.enqueue(encoder.encode(text));
          } catch {
            // The client went away between two writes (a heartbeat timer, say): clean up once.
            cleanup?.();
          }
        };
        let unsubscribe: () => void;
        try {
          unsubscribe = await liveEventsHub().subscribe({
            queues,
            send: (batches) => {
              const message: LiveEventsMessage = { batches };
              write(`event: events\ndata: ${JSON.stringify(message)}\n\n`);
            },
          });
        } catch (error) {
          // Redis away: the stream ends at once, and its place in the user's quota is given back.
          release();
          controller.error(error);
          return;
        }
        // Each heartbeat also re-checks the session: a stream opened before its session was
        // signed out (or its user removed) ends within one interval instead of running on.
        const heartbeat = setInterval(() => {
          write(`: heartbeat ${Date.now()}\n\n`);
          requestUser(request).then(
            (current) => {
              if (current?.username !== user.username) cleanup?.();
            },
            () => undefined,
          );
        }, HEARTBEAT_MS);
        cleanup = () => {
          if (closed) return;
          closed = true;
          clearInterval(heartbeat);
          unsubscribe();
          release();
          try {
            controller.close();
          } catch {
            // Already closed by the runtime after the client went away.
          }
        };
        if (request.signal.aborted) return cleanup();
        request.signal.addEventListener('abort', () => cleanup?.(), { once: true });
        write(
          `retry: ${RETRY_MS}\nevent: ready\ndata: ${JSON.stringify({ queues: queues.length })}\n\n`,
        );
      },
      cancel() {
        cleanup?.();
      },
    });
    return new Response(stream, {
      headers: {
        'Content-Type': 'text/event-stream; charset=utf-8',
        'Cache-Control': 'no-store, no-transform',
        Connection: 'keep-alive',
        // Compression or proxy buffering would hold events back until a chunk fills.
        'Content-Encoding': 'none',
        'X-Accel-Buffering': 'no',
      },
    });
  },
);
