/**
 * Every public member of bullmq 6.7.0's Worker and Job (read from its type declarations) exists on
 * OxMQ's class, or is listed as missing, with its reason, in docs/bullmq-compatibility.md.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Job, Worker } from 'oxmq';

const require = createRequire(import.meta.url);
const bullmqDir = path.dirname(require.resolve('bullmq/package.json'));
const docs = readFileSync(
  path.join(path.dirname(new URL(import.meta.url).pathname), '../../docs/bullmq-compatibility.md'),
  'utf8',
);

/** Public member names of a declared class (own members, not inherited ones). */
function publicMembers(file: string, className: string): { name: string; isStatic: boolean }[] {
  const text = readFileSync(path.join(bullmqDir, 'dist/esm/classes', file), 'utf8');
  const body = text.slice(text.indexOf(`export declare class ${className}`));
  const members = new Map<string, boolean>();
  for (const line of body.split('\n').slice(1)) {
    if (line.startsWith('}')) break;
    const match = /^ {4}(static )?(?:readonly )?(?:get |set )?([A-Za-z_]\w*)[?(<:]/.exec(line);
    if (!match || match[2] === 'constructor') continue;
    members.set(match[2]!, match[1] !== undefined);
  }
  return [...members].map(([name, isStatic]) => ({ name, isStatic }));
}

/** The names a section of the compatibility page lists as missing. */
function documentedMissing(section: string): Set<string> {
  const start = docs.indexOf(`## ${section}\n`);
  const end = docs.indexOf('\n## ', start + 1);
  const names = new Set<string>();
  for (const row of docs.slice(start, end).split('\n')) {
    const cells = row.split('|').map((cell) => cell.trim());
    if (cells[2] !== 'missing') continue;
    for (const [, name] of cells[1]!.matchAll(/`(?:static )?([A-Za-z_]\w*)/g)) names.add(name!);
  }
  return names;
}

function absent(
  members: { name: string; isStatic: boolean }[],
  cls: object,
  instance: object,
  missing: Set<string>,
): string[] {
  return members
    .filter(({ name, isStatic }) => !(isStatic ? name in cls : name in instance))
    .map(({ name }) => name)
    .filter((name) => !missing.has(name));
}

describe('bullmq 6.7.0 API surface', () => {
  it('Worker: every public member exists or is documented as missing', async () => {
    const members = publicMembers('worker.d.ts', 'Worker');
    expect(members.map(({ name }) => name)).toEqual(
      expect.arrayContaining(['getNextJob', 'cancelJob', 'RateLimitError', 'concurrency']),
    );
    expect(documentedMissing('Worker')).toContain('processJob');
    const worker = new Worker('surface', null, {
      connection: { host: '127.0.0.1', port: 1, lazyConnect: true },
    });
    try {
      expect(absent(members, Worker, worker, documentedMissing('Worker'))).toEqual([]);
    } finally {
      worker.removeAllListeners();
      await worker.close(true).catch(() => undefined);
    }
  });

  it('Job: every public member exists or is documented as missing', () => {
    const members = publicMembers('job.d.ts', 'Job');
    expect(members.map(({ name }) => name)).toEqual(
      expect.arrayContaining(['moveToCompleted', 'fromJSON', 'clearLogs', 'queueQualifiedName']),
    );
    expect(documentedMissing('Job')).toContain('asJSONSandbox');
    const scope = { name: 'surface', prefix: 'bull' } as never;
    const job = new Job(scope, 'n', {}, {}, '1', 0);
    // Optional fields bullmq declares may be unset on a fresh job: count own keys and prototype.
    const declaredOptional = new Set([
      'finishedOn',
      'processedOn',
      'parentKey',
      'parent',
      'deduplicationId',
      'repeatJobKey',
      'token',
      'processedBy',
      'failedReason',
      'deferredFailure',
    ]);
    const missing = documentedMissing('Job');
    const notThere = absent(members, Job, job, missing).filter(
      (name) => !declaredOptional.has(name),
    );
    expect(notThere).toEqual([]);
  });
});
