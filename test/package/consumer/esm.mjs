// A producer, a worker and QueueEvents in plain Node ESM, from the installed package.
import { OXMQ_VERSION, Queue, QueueEvents, Worker } from 'oxmq';
import { listQueues } from 'oxmq/admin';
import { Redis } from 'ioredis';

const connection = { host: '127.0.0.1', port: Number(process.env.REDIS_PORT) };
const name = process.env.QUEUE_NAME;

const queue = new Queue(name, { connection });
const events = new QueueEvents(name, { connection });
await events.waitUntilReady();
const worker = new Worker(name, async (job) => job.data.n * 2, { connection });
const job = await queue.add('double', { n: 21 });
const result = await job.waitUntilFinished(events, 15_000);

const client = new Redis(connection);
const listed = await listQueues(client, ['bull']);
const seen = listed.queues.some((entry) => entry.name === name);
await client.quit();

await worker.close();
await events.close();
await queue.obliterate({ force: true });
await queue.close();
process.stdout.write(JSON.stringify({ result, seen, version: OXMQ_VERSION }));
