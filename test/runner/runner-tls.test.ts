/**
 * The real runner process over TLS: REDIS_URL with the rediss:// scheme against a redis-server
 * that only speaks TLS on its tls-port, with a certificate from a CA of the test's own (openssl),
 * trusted by the runner through NODE_EXTRA_CA_CERTS as an operator would.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Queue } from 'oxmq';
import { freePort, startRedis, type RedisServer } from '../setup/redis-server';
import { useCleanup } from '../helpers/cleanup';
import { waitFor } from '../helpers/redis';
import { fixture, useRunners } from '../helpers/runner-process';

const track = useCleanup();
const startRunner = useRunners();

let dir: string;
let server: RedisServer | undefined;
let tlsPort: number;

/** A CA and a server certificate for 127.0.0.1 signed by it. */
function makeCertificates(into: string): void {
  const run = (...args: string[]) => execFileSync('openssl', args, { cwd: into, stdio: 'pipe' });
  run(
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-days',
    '2',
    '-subj',
    '/CN=oxmq-test-ca',
    '-keyout',
    'ca.key',
    '-out',
    'ca.crt',
  );
  run(
    'req',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-subj',
    '/CN=127.0.0.1',
    '-keyout',
    'server.key',
    '-out',
    'server.csr',
  );
  writeFileSync(path.join(into, 'ext.cnf'), 'subjectAltName=IP:127.0.0.1\n');
  run(
    'x509',
    '-req',
    '-in',
    'server.csr',
    '-CA',
    'ca.crt',
    '-CAkey',
    'ca.key',
    '-CAcreateserial',
    '-out',
    'server.crt',
    '-days',
    '2',
    '-extfile',
    'ext.cnf',
  );
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'oxmq-tls-'));
  makeCertificates(dir);
  tlsPort = await freePort();
  server = await startRedis([
    '--tls-port',
    String(tlsPort),
    '--tls-cert-file',
    path.join(dir, 'server.crt'),
    '--tls-key-file',
    path.join(dir, 'server.key'),
    '--tls-ca-cert-file',
    path.join(dir, 'ca.crt'),
    '--tls-auth-clients',
    'no',
  ]);
}, 30_000);

afterAll(async () => {
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('worker runner over TLS (rediss://)', () => {
  it('processes jobs through a TLS connection it trusts', async () => {
    const runner = startRunner({
      modules: { 'alpha.ts': fixture('alpha.ts') },
      env: {
        REDIS_URL: `rediss://127.0.0.1:${tlsPort}`,
        NODE_EXTRA_CA_CERTS: path.join(dir, 'ca.crt'),
      },
    });
    await runner.ready(30_000);
    const queue = track(
      new Queue('alpha', {
        connection: {
          url: `rediss://127.0.0.1:${tlsPort}`,
          tls: { ca: readFileSync(path.join(dir, 'ca.crt')) },
        },
        prefix: runner.prefix,
      }),
    );
    const job = await queue.add('echo', { text: 'encrypted' });
    const done = await waitFor(async () => (await queue.getJob(job.id!))?.returnvalue, 20_000);
    expect(done).toMatchObject({ queue: 'alpha', echoed: 'encrypted' });
  });
});
