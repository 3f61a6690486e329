/**
 * A streamed answer made of lines (NDJSON, CSV), pulled from an async iterator: the next line is
 * produced only when the client has read the previous ones, so a slow reader slows the scan that
 * feeds it instead of filling the server's memory, and a client that goes away (a closed tab,
 * an aborted fetch) ends the iterator, which stops its scan at the next window.
 */
import 'server-only';

/** `onClose` runs once, however the stream ends: read to the end, failed, or cancelled. */
export function lineStreamResponse(
  lines: AsyncIterator<string, void>,
  headers: Record<string, string>,
  onClose: () => void = () => {},
): Response {
  const encoder = new TextEncoder();
  let closed = false;
  const close = () => {
    if (closed) return;
    closed = true;
    onClose();
  };
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const next = await lines.next();
        if (next.done) {
          close();
          controller.close();
        } else controller.enqueue(encoder.encode(next.value));
      } catch (error) {
        // Headers are gone already: the stream ends in error, and the server log says why.
        console.error('OxMQ console: a streamed answer failed:', error);
        close();
        controller.error(error);
      }
    },
    async cancel() {
      close();
      await lines.return?.();
    },
  });
  return new Response(stream, {
    headers: { 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff', ...headers },
  });
}
