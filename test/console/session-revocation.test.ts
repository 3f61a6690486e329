/**
 * Sessions follow the configured users, not the token: with OXMQ_USERS in a file, removing a
 * user, changing their role or their password takes effect on their next request (the file is
 * re-read when it changes), for API routes and pages alike.
 */
import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import bcrypt from 'bcryptjs';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Queue } from 'oxmq';
import type { ApiError } from '../../lib/api-types';
import { redisOptions, uniqueQueueName } from '../helpers/redis';
import { signIn } from './console-client';
import { startConsole, type ConsoleServer } from './console-server';
import { consoleEnv } from './users';

const dir = mkdtempSync(path.join(tmpdir(), 'oxmq-users-'));
const usersFile = path.join(dir, 'users.json');
const OTTO = { username: 'otto', password: 'otto-operator-pw' };
const PAM = { username: 'pam', password: 'pam-viewer-password' };
const queueName = uniqueQueueName('revocation');
let queue: Queue;
let server: ConsoleServer;

interface FileUser {
  username: string;
  password: string;
  role: 'admin' | 'operator' | 'viewer';
}

// One hash per password, as in a real file where changing a role leaves the hash alone.
const hashes = new Map<string, string>();
function hashOf(password: string): string {
  let hash = hashes.get(password);
  if (hash === undefined) hashes.set(password, (hash = bcrypt.hashSync(password, 4)));
  return hash;
}

/** Replaces the users file in one step, as an editor saving it would. */
function writeUsers(users: FileUser[]): void {
  const next = `${usersFile}.next`;
  const entries = users.map(({ username, password, role }) => ({
    username,
    passwordHash: hashOf(password),
    role,
  }));
  writeFileSync(next, JSON.stringify(entries));
  renameSync(next, usersFile);
}

beforeAll(async () => {
  queue = new Queue(queueName, { connection: redisOptions() });
  await queue.add('one', {});
  writeUsers([
    { ...OTTO, role: 'operator' },
    { ...PAM, role: 'viewer' },
  ]);
  server = await startConsole(consoleEnv(inject('redisPort'), { OXMQ_USERS: usersFile }));
});

afterAll(async () => {
  await server.stop();
  await queue.obliterate({ force: true });
  await queue.close();
  rmSync(dir, { recursive: true, force: true });
});

async function code(response: Response): Promise<string> {
  return ((await response.json()) as ApiError).code;
}

describe('session revocation', () => {
  it('downgrading a user takes their role away on the next request', async () => {
    const otto = await signIn(server.url, OTTO);
    const pause = () => otto.post(`/api/queues/bull/${queueName}/pause`, {});
    expect((await pause()).status).toBe(200);
    writeUsers([
      { ...OTTO, role: 'viewer' },
      { ...PAM, role: 'viewer' },
    ]);
    const refused = await pause();
    expect(refused.status).toBe(403);
    expect(await code(refused)).toBe('FORBIDDEN');
    expect((await otto.get('/api/queues')).status).toBe(200);
  });

  it('removing a user signs them out of API routes and pages at once', async () => {
    const pam = await signIn(server.url, PAM);
    expect((await pam.get('/api/queues')).status).toBe(200);
    expect((await pam.get('/')).status).toBe(200);
    writeUsers([{ ...OTTO, role: 'viewer' }]);
    const api = await pam.get('/api/queues');
    expect(api.status).toBe(401);
    expect(await code(api)).toBe('UNAUTHENTICATED');
    const page = await pam.get('/');
    expect(page.status).toBe(307);
    expect(page.headers.get('location')).toContain('/login');
  });

  it("changing a user's password ends sessions made with the old one", async () => {
    const otto = await signIn(server.url, OTTO);
    expect((await otto.get('/api/queues')).status).toBe(200);
    writeUsers([{ username: OTTO.username, password: 'a-brand-new-password', role: 'viewer' }]);
    expect((await otto.get('/api/queues')).status).toBe(401);
    await expect(signIn(server.url, OTTO)).rejects.toThrow(/refused/);
    await expect(
      signIn(server.url, { username: OTTO.username, password: 'a-brand-new-password' }),
    ).resolves.toBeDefined();
  });
});
