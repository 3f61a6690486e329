// The same in CommonJS, with a sandboxed processor: the package's compiled child runs it
// without tsx, which this project does not install.
const path = require('node:path');
const { OXMQ_VERSION, Queue, QueueEvents, Worker } = require('oxmq');

async function main() {
  const connection = { host: '127.0.0.1', port: Number(process.env.REDIS_PORT) };
  const name = process.env.QUEUE_NAME;
  const queue = new Queue(name, { connection });
  const events = new QueueEvents(name, { connection });
  await events.waitUntilReady();
  const worker = new Worker(name, path.join(__dirname, 'processor.cjs'), { connection });
  const job = await queue.add('square', { n: 12 });
  const result = await job.waitUntilFinished(events, 15_000);
  let typedRefusal = null;
  try {
    new Worker(name, path.join(__dirname, 'typed-processor.ts'), { connection, autorun: false });
  } catch (error) {
    typedRefusal = `${error.name}: ${error.message}`;
  }
  await worker.close();
  await events.close();
  await queue.obliterate({ force: true });
  await queue.close();
  process.stdout.write(JSON.stringify({ result, typedRefusal, version: OXMQ_VERSION }));
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
