import { FlowProducer as BullFlowProducer } from 'bullmq';
import { it } from 'vitest';
import { FlowProducer } from '../../engine';
import { rawClient, redisOptions, uniqueQueueName } from '../helpers/redis';

it('dump', async () => {
  const redis = rawClient();
  const ts = 1_700_000_000_000;
  for (const side of ['b', 'n'] as const) {
    const prefix = `dump-${side}-${uniqueQueueName()}`;
    const tree = {
      name: 'root',
      queueName: 'P',
      data: { r: 1 },
      opts: { jobId: 'root', timestamp: ts, priority: 3 },
      children: [
        {
          name: 'c1',
          queueName: 'C1',
          data: { c: 1 },
          opts: { jobId: 'c1', timestamp: ts, failParentOnFailure: true },
        },
        {
          name: 'c2',
          queueName: 'P',
          data: { c: 2 },
          opts: { jobId: 'c2', timestamp: ts, delay: 1000 },
          children: [
            {
              name: 'g',
              queueName: 'C1',
              data: {},
              opts: { jobId: 'g', timestamp: ts, ignoreDependencyOnFailure: true },
            },
          ],
        },
      ],
    };
    if (side === 'b') {
      const fp = new BullFlowProducer({ connection: redisOptions(), prefix });
      await fp.add(tree);
      await fp.close();
    } else {
      const fp = new FlowProducer({ connection: redisOptions(), prefix });
      await fp.add(tree);
      await fp.close();
    }
    const keys = (await redis.keys(`${prefix}:*`)).sort();
    for (const k of keys) {
      const t = await redis.type(k);
      let v: unknown;
      if (t === 'hash') v = await redis.hgetall(k);
      else if (t === 'set') v = await redis.smembers(k);
      else if (t === 'zset') v = await redis.zrange(k, 0, -1, 'WITHSCORES');
      else if (t === 'list') v = await redis.lrange(k, 0, -1);
      else if (t === 'stream') v = (await redis.xrange(k, '-', '+')).map((e) => e[1].join(' '));
      else v = await redis.get(k);
      console.log(side, k.slice(prefix.length), t, JSON.stringify(v));
    }
  }
  await redis.quit();
});
