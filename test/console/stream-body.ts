/**
 * Streams a request body in chunks, without Content-Length, until the server answers or the
 * cap is reached (then it ends the body); bounded in bytes and time whatever the server does.
 * For tests that a body limit answers while the client is still sending.
 */
import http from 'node:http';

export interface StreamedOutcome {
  status: number;
  /** The answer's body as text. */
  text: string;
  /** Bytes written before the answer came (`cap`: the server waited for the end). */
  sentBeforeAnswer: number;
}

export interface StreamedRequest {
  url: URL;
  headers: Record<string, string>;
  /** Sent first; then chunks of `x` until the answer or the cap. */
  opening: string;
  /** Sent last, when the cap is reached. */
  closing: string;
  cap: number;
  deadlineMs?: number;
}

const CHUNK = 'x'.repeat(16 * 1024);

export function streamBody(spec: StreamedRequest): Promise<StreamedOutcome> {
  return new Promise((resolve, reject) => {
    const request = http.request(spec.url, {
      method: 'POST',
      headers: { ...spec.headers, 'transfer-encoding': 'chunked' },
    });
    let sent = spec.opening.length;
    let answered = false;
    const deadline = setTimeout(
      () => request.destroy(new Error('no answer in time')),
      spec.deadlineMs ?? 20_000,
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
        resolve({ status: response.statusCode ?? 0, text, sentBeforeAnswer });
      });
    });
    request.on('error', (error) => {
      clearTimeout(deadline);
      if (!answered) reject(error);
    });
    let ended = false;
    // One chunk per tick (about 1.6 MB/s), waiting while the socket pushes back: an answer
    // that comes after the first kilobytes overtakes the upload by far.
    const interval = setInterval(() => {
      if (answered || ended || request.destroyed) return clearInterval(interval);
      if (request.writableNeedDrain) return;
      if (sent >= spec.cap) {
        ended = true;
        request.end(spec.closing);
        return;
      }
      sent += CHUNK.length;
      request.write(CHUNK);
    }, 10);
    request.write(spec.opening);
  });
}
