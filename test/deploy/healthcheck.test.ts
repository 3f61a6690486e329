/**
 * deploy/healthcheck.mjs, the images' HEALTHCHECK: run as Docker runs it, against a local
 * server that answers as the console's /api/health and the runner's /readyz do (200 up, 503
 * down), and against a port nobody listens on.
 */
import { execFile } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const script = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '..',
  '..',
  'deploy',
  'healthcheck.mjs',
);

async function check(url: string): Promise<number> {
  try {
    await promisify(execFile)(process.execPath, [script, url], { timeout: 10_000 });
    return 0;
  } catch (error) {
    return (error as { code?: number }).code ?? -1;
  }
}

describe('deploy/healthcheck.mjs', () => {
  let server: http.Server;
  let base: string;
  beforeAll(async () => {
    server = http.createServer((request, response) => {
      response.writeHead(request.url === '/up' ? 200 : 503).end('{}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('exits 0 when the endpoint answers 200', async () => {
    expect(await check(`${base}/up`)).toBe(0);
  });

  it('exits 1 when it answers 503', async () => {
    expect(await check(`${base}/down`)).toBe(1);
  });

  it('exits 1 when nothing listens', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    expect(await check(`http://127.0.0.1:${port}/readyz`)).toBe(1);
  });
});
