/**
 * The runner's health server answers only requests whose Host is an IP address, localhost or a
 * name it was told about (runner/host-check.ts): a page whose name was re-pointed at this
 * machine (DNS rebinding) gets 421 for /livez, /readyz, /health and /metrics alike.
 */
import { describe, expect, it } from 'vitest';
import { hostAllowed, hostPolicy } from '../../runner/host-check';
import { getWithHost } from '../helpers/http-with-host';
import { fixture, useRunners } from '../helpers/runner-process';

const startRunner = useRunners();
const PATHS = ['/livez', '/readyz', '/health', '/metrics'];

describe('health server: Host check', () => {
  it('refuses a forged Host on every endpoint and answers addresses and localhost', async () => {
    const runner = startRunner({
      modules: { 'alpha.ts': fixture('alpha.ts') },
      env: { WORKER_HEALTH_ALLOWED_HOSTS: 'worker.jobs.svc' },
    });
    const port = await runner.ready();
    for (const pathname of PATHS) {
      for (const forged of [
        'attacker.example',
        `attacker.example:${port}`,
        'localhost.attacker.example',
      ]) {
        const refused = await getWithHost(port, pathname, forged);
        expect(refused.status, `${pathname} with Host ${forged}`).toBe(421);
        expect(JSON.parse(refused.body)).toEqual({
          error: expect.stringContaining('host not allowed'),
        });
        expect(refused.body).not.toContain('attacker');
      }
    }
    for (const host of [
      `127.0.0.1:${port}`,
      `localhost:${port}`,
      'LOCALHOST',
      `[::1]:${port}`,
      '10.1.2.3:3001', // the kubelet's probe names the pod's address
      `worker.jobs.svc:${port}`,
    ]) {
      const answered = await getWithHost(port, '/livez', host);
      expect(answered.status, `Host ${host}`).toBe(200);
    }
    expect((await getWithHost(port, '/metrics', `localhost:${port}`)).status).toBe(200);
  });

  it('answers any Host with WORKER_HEALTH_ALLOWED_HOSTS=*', async () => {
    const runner = startRunner({
      modules: { 'alpha.ts': fixture('alpha.ts') },
      env: { WORKER_HEALTH_ALLOWED_HOSTS: '*' },
    });
    const port = await runner.ready();
    expect((await getWithHost(port, '/livez', 'anything.example')).status).toBe(200);
  });

  it('refuses a bad WORKER_HEALTH_ALLOWED_HOSTS at start', async () => {
    const runner = startRunner({ env: { WORKER_HEALTH_ALLOWED_HOSTS: 'host:3001' } });
    expect(await runner.exited).toBe(1);
    expect(runner.stderr()).toContain('WORKER_HEALTH_ALLOWED_HOSTS');
  });
});

describe('hostAllowed', () => {
  const loopback = hostPolicy('127.0.0.1', []);
  const table: [host: string | undefined, allowed: boolean][] = [
    ['127.0.0.1', true],
    ['127.0.0.1:3001', true],
    ['localhost', true],
    ['localhost:3001', true],
    ['[::1]:3001', true],
    ['[::1]', true],
    ['192.168.1.20:3001', true],
    [undefined, true],
    ['attacker.example', false],
    ['attacker.example:3001', false],
    ['localhost.', false],
    ['sub.localhost', false],
    ['evil@127.0.0.1', false],
    ['127.0.0.1/x', false],
    ['', false],
  ];
  it.each(table)('Host %s → %s', (host, allowed) => {
    expect(hostAllowed(host, loopback)).toBe(allowed);
  });

  it('answers the bind address when it is a name, and listed names in any case', () => {
    const policy = hostPolicy('worker-1.internal', ['Metrics.Example']);
    expect(hostAllowed('worker-1.internal:3001', policy)).toBe(true);
    expect(hostAllowed('metrics.example', policy)).toBe(true);
    expect(hostAllowed('other.example', policy)).toBe(false);
  });
});
