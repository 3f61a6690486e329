/**
 * engine/admin/create-admin.ts: one admin object bound to one client. Its operations reach the
 * client they were bound to (discovery over the given prefixes, a queue's jobs, the audit
 * streams), every job-text read answers the redacted view under the rules given (a function
 * asked on each call), filters match that view, and only `storedData` answers data as stored.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Queue, ValidationError } from 'oxmq';
import { createAdmin, REDACTED, redactionRules } from 'oxmq/admin';
import { rawClient, redisOptions, uniqueQueueName } from '../helpers/redis';

const client = rawClient();
const name = uniqueQueueName('create-admin');
const prefix = uniqueQueueName('ca-prefix');
const queue = new Queue(name, { connection: redisOptions(), prefix });
let extra: string[] = [];
const admin = createAdmin(client, { prefixes: [prefix], redaction: () => redactionRules(extra) });
let jobId: string;

beforeAll(async () => {
  await queue.waitUntilReady();
  const job = await queue.add('mail', { password: 'pw-1', tenant: 'acme', visible: 'yes' });
  jobId = job.id!;
});

afterAll(async () => {
  await queue.close();
  await client.quit();
});

describe('createAdmin', () => {
  it('refuses options it could not mean, with a typed error', () => {
    const bad: [string, () => unknown][] = [
      ['no client', () => createAdmin(undefined as never, { prefixes: ['bull'] })],
      ['no prefixes', () => createAdmin(client, {} as never)],
      ['an empty prefix', () => createAdmin(client, { prefixes: [''] })],
      ['a bad threshold', () => createAdmin(client, { prefixes: ['b'], oldBacklogMinutes: -1 })],
    ];
    for (const [what, make] of bad) expect(make, what).toThrow(ValidationError);
  });

  it('discovers the queues of its prefixes and reads them on its client', async () => {
    const { queues } = await admin.queues.discover();
    expect(queues).toEqual([{ prefix, name }]);
    expect(await admin.queues.exists(prefix, name)).toBe(true);
    expect(
      await admin.queues.existing([
        { prefix, name },
        { prefix, name: 'none' },
      ]),
    ).toEqual([{ prefix, name }]);
    expect((await admin.queues.overview(prefix, name)).counts.waiting).toBe(1);
    const page = await admin.jobs.list(prefix, name, { state: 'waiting', page: 1, pageSize: 10 });
    expect(page.jobs.map((row) => row.id)).toEqual([jobId]);
  });

  it('answers job data redacted under the rules in force at each call', async () => {
    extra = [];
    const before = await admin.jobs.detail(prefix, name, jobId);
    expect(before?.data).toEqual({ password: REDACTED, tenant: 'acme', visible: 'yes' });
    extra = ['tenant'];
    const after = await admin.jobs.detail(prefix, name, jobId);
    expect(after?.data).toEqual({ password: REDACTED, tenant: REDACTED, visible: 'yes' });
    expect(await admin.jobs.storedData(prefix, name, jobId)).toEqual({
      data: { password: 'pw-1', tenant: 'acme', visible: 'yes' },
    });
  });

  it('matches searches against the redacted view, never a hidden value', async () => {
    extra = ['tenant'];
    const search = (query: string) =>
      admin.jobs.search(prefix, name, {
        state: 'waiting',
        mode: 'text',
        query,
        order: 'newest',
        cursor: 0,
        budget: 100,
      });
    expect((await search('yes')).matches.map((row) => row.id)).toEqual([jobId]);
    expect((await search('acme')).matches).toEqual([]);
    expect((await search('pw-1')).matches).toEqual([]);
  });

  it('writes and reads the audit stream of each kind', async () => {
    const record = {
      actor: 'ada',
      role: 'admin',
      action: 'queue.pause',
      target: `${prefix}:${name}`,
      params: {},
      outcome: 'ok' as const,
      status: 200,
    };
    const id = await admin.audit.append('accepted', record);
    const page = await admin.audit.read({ kind: 'accepted', count: 100 });
    expect(page.entries.find((entry) => entry.id === id)).toMatchObject(record);
    const refused = await admin.audit.read({ kind: 'refused', count: 100 });
    expect(refused.entries.some((entry) => entry.id === id)).toBe(false);
  });
});
