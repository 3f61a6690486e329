/** The connections of a worker: the name consoles find it by, closed-connection noise. */

/** Client name bullmq's getWorkers() and Bull-Board look for. */
export function workerConnectionName(
  prefix: string,
  queueName: string,
  workerName?: string,
): string {
  const base = `${prefix}:${Buffer.from(queueName).toString('base64')}`;
  return workerName ? `${base}:w:${workerName}` : base;
}

/** An error of a command cut short by the worker's own close (not worth an error event). */
export function isConnectionClosedError(error: unknown): boolean {
  return (
    error instanceof Error &&
    /Connection is closed|ClosedError/i.test(`${error.message} ${error.name}`)
  );
}
