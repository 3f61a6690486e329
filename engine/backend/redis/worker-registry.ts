/**
 * WorkerRegistry on Redis: each worker's record is a hash with a TTL (`Q oxmq:worker:<id>`),
 * indexed by its last beat (`Q oxmq:workers`), with its pending cancel requests beside it
 * (docs/redis-keys.md). One beat is one script call (lua/workerHeartbeat-3.lua).
 */
import type { RedisClient } from './connection';
import type { QueueKeys } from '../../queue/keys';
import { scriptKeys } from '../../scripts/script-keys';
import {
  parseCancelRequest,
  workerCancelKey,
  workerRecordKey,
  workersIndexKey,
  workerWakeKey,
} from '../../worker/heartbeat-keys';
import { HEARTBEAT_INDEX_KEEP_MS } from '../../worker/heartbeat';
import type { HeartbeatReply, WorkerCommand, WorkerRegistry } from '../worker-registry';
import { clientAddress } from './client-address';
import { runScript } from './run-script';
import { commandWorker } from './worker-requests';

export class RedisWorkerRegistry implements WorkerRegistry {
  constructor(
    private readonly client: RedisClient,
    private readonly keys: QueueKeys,
    /** A worker's named connection: its address lets a console match CLIENT LIST to a record. */
    private readonly namedClient?: RedisClient,
  ) {}

  async beat(
    workerId: string,
    record: Record<string, string>,
    ttlMs: number,
    now: number,
  ): Promise<HeartbeatReply> {
    const keys = this.keys;
    const reply = await runScript(
      this.client,
      'workerHeartbeat',
      scriptKeys('workerHeartbeat', keys, {
        worker: workerRecordKey(keys, workerId),
        workers: workersIndexKey(keys),
        workerCancel: workerCancelKey(keys, workerId),
      }),
      [
        workerId,
        now,
        ttlMs,
        JSON.stringify({
          ...record,
          addr: this.namedClient ? (clientAddress(this.namedClient) ?? '') : '',
        }),
        keys.base,
        HEARTBEAT_INDEX_KEEP_MS,
      ],
    );
    const [command, pairs] = Array.isArray(reply) ? reply : [];
    const cancels: HeartbeatReply['cancels'] = [];
    const flat = Array.isArray(pairs) ? (pairs as string[]) : [];
    for (let i = 0; i + 1 < flat.length; i += 2) {
      cancels.push({ jobId: flat[i]!, request: parseCancelRequest(flat[i + 1]!) });
    }
    return command === 'quiet' || command === 'resume' ? { command, cancels } : { cancels };
  }

  async remove(workerId: string): Promise<void> {
    const keys = this.keys;
    // A pipeline, not a MULTI: Redis at maxmemory refuses every command queued in a MULTI, while
    // these deletes pass there and free memory. A reader meeting the index entry without its
    // record takes the worker as gone, as after the record's TTL.
    await this.client
      .pipeline()
      .del(
        workerRecordKey(keys, workerId),
        workerCancelKey(keys, workerId),
        workerWakeKey(keys, workerId),
      )
      .zrem(workersIndexKey(keys), workerId)
      .exec();
  }

  commandWorker(workerId: string, command: WorkerCommand): Promise<boolean> {
    return commandWorker(this.client, this.keys, workerId, command);
  }

  async listWorkers(): Promise<Record<string, string>[]> {
    const ids = await this.client.zrevrange(workersIndexKey(this.keys), 0, -1);
    if (ids.length === 0) return [];
    const pipeline = this.client.pipeline();
    for (const id of ids) pipeline.hgetall(workerRecordKey(this.keys, id));
    const replies = (await pipeline.exec()) ?? [];
    return replies.flatMap(([error, hash]) => {
      if (error) throw error;
      const record = hash as Record<string, string>;
      return Object.keys(record).length > 0 ? [record] : [];
    });
  }
}
