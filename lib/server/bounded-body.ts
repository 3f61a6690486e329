/**
 * Reads a request body as text, but never more than a limit: the stream is read chunk by chunk
 * and abandoned as soon as the total passes the limit. A body sent without Content-Length
 * (`Transfer-Encoding: chunked`) can be any size, so checking only after `request.text()` would
 * buffer all of it first.
 */
import 'server-only';

export class BodyTooLargeError extends Error {
  override readonly name = 'BodyTooLargeError';
  constructor(readonly limit: number) {
    super(`Bodies are limited to ${limit} bytes`);
  }
}

export async function readBoundedText(request: Request, limit: number): Promise<string> {
  if (!request.body) return '';
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      // Not awaited: the answer must not wait for a client that keeps sending.
      reader.cancel().catch(() => undefined);
      throw new BodyTooLargeError(limit);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}
