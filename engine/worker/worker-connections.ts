/** The connections of a worker: the name consoles find it by, readiness, closed-connection noise. */
import type { RedisClient } from '../connection';
import { ClosedError } from '../errors';

/** Client name bullmq's getWorkers() and Bull-Board look for. */
export function workerConnectionName(
  prefix: string,
  queueName: string,
  workerName?: string,
): string {
  const base = `${prefix}:${Buffer.from(queueName).toString('base64')}`;
  return workerName ? `${base}:w:${workerName}` : base;
}

/** Resolves once the client is ready; rejects if it ends first. */
export function waitForReady(client: RedisClient): Promise<void> {
  if (client.status === 'ready') return Promise.resolve();
  return new Promise((resolve, reject) => {
    const onReady = () => {
      client.off('end', onEnd);
      resolve();
    };
    const onEnd = () => {
      client.off('ready', onReady);
      reject(new ClosedError('Connection closed before it was ready'));
    };
    client.once('ready', onReady);
    client.once('end', onEnd);
  });
}

/** An error of a command cut short by the worker's own close (not worth an error event). */
export function isConnectionClosedError(error: unknown): boolean {
  return (
    error instanceof Error &&
    /Connection is closed|ClosedError/i.test(`${error.message} ${error.name}`)
  );
}
