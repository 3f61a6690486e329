/**
 * The script API's types: `npm run typecheck` compiles this file, and each `@ts-expect-error`
 * below fails the typecheck if its line ever compiles (a wrong key count, an unknown script, a
 * missing or unknown named key, an error label naming no script). At run time the same calls,
 * forced past the types, still fail with a clear error before anything reaches Redis.
 */
import type { ChainableCommander, Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  QueueKeys,
  execTransaction,
  queueScript,
  runScript,
  throwIfErrorCode,
  scriptKeys,
} from 'oxmq/internals';
import { rawClient } from '../helpers/redis';

const k = new QueueKeys('bull', 'types');

/** Never called: only compiled. */
export function typeChecks(client: Redis, multi: ChainableCommander): void {
  void runScript(client, 'updateData', [k.job('1')], ['{}']);
  // @ts-expect-error updateData has one key, not two
  void runScript(client, 'updateData', [k.job('1'), k.meta], ['{}']);
  // @ts-expect-error changeDelay has four keys, not three
  void runScript(client, 'changeDelay', [k.delayed, k.meta, k.marker], [1, 2, '1', k.job('1')]);
  // @ts-expect-error a plain string[] may have any length
  void runScript(client, 'updateData', [k.job('1')] as string[], ['{}']);
  // @ts-expect-error no such script
  void runScript(client, 'noSuchScript', [k.meta], []);
  // @ts-expect-error the keys built for one script do not fit one with another count
  void runScript(client, 'updateData', scriptKeys('changeDelay', k), []);
  // @ts-expect-error nor another script's keys of the same count (drain's come in another order)
  void runScript(client, 'drain', scriptKeys('removeJobScheduler', k), [k.base, '0', 100]);

  queueScript(multi, 'getJobState', scriptKeys('getJobState', k), ['1']);
  // @ts-expect-error the transaction helper counts keys too
  queueScript(multi, 'getJobState', [k.completed], ['1']);

  scriptKeys('moveToDelayed', k, { jobHash: k.job('1') });
  // @ts-expect-error moveToDelayed's job hash is not a queue key: it must be given
  scriptKeys('moveToDelayed', k);
  // @ts-expect-error nor may a key its header does not name be given
  scriptKeys('moveToDelayed', k, { jobHash: k.job('1'), job: k.job('1') });
  // @ts-expect-error promote's keys are all queue keys: nothing else to give
  scriptKeys('promote', k, { jobHash: k.job('1') });

  throwIfErrorCode(0, '1', 'moveToFinished(failed)');
  // @ts-expect-error an error names the script it came from, and there is no such script
  throwIfErrorCode(0, '1', 'moveToFinish');
}

describe('script calls forced past the types', () => {
  let client: Redis;
  beforeAll(() => {
    client = rawClient();
  });
  afterAll(async () => {
    await client.quit();
  });

  it('an unknown script name fails before Redis is asked', async () => {
    expect(() => runScript(client, 'noSuchScript' as never, [] as never, [])).toThrow(
      /OxMQ script not loaded: noSuchScript/,
    );
    await expect(
      execTransaction(client, (multi) =>
        queueScript(multi, 'noSuchScript' as never, [] as never, []),
      ),
    ).rejects.toThrow(/OxMQ script not loaded: noSuchScript/);
  });

  it('a key the types require but the caller left out is named in the error', () => {
    const forced = scriptKeys as (name: string, queue: QueueKeys) => readonly string[];
    expect(() => forced('moveToDelayed', k)).toThrow(/moveToDelayed: no value for its key jobHash/);
  });

  it('typed calls run, alone and inside a transaction after SCRIPT LOAD', async () => {
    expect(await runScript(client, 'getJobState', scriptKeys('getJobState', k), ['1'])).toBe(
      'unknown',
    );
    const replies = await execTransaction(client, (multi) => {
      queueScript(multi, 'getJobState', scriptKeys('getJobState', k), ['1']);
      queueScript(multi, 'getJobsInStates', scriptKeys('getJobsInStates', k), [
        0,
        -1,
        '1',
        5,
        'wait',
      ]);
    });
    expect(replies).toEqual([
      [null, 'unknown'],
      [null, []],
    ]);
  });
});
