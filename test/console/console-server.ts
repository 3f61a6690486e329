/**
 * Starts the built console (`next start`) on a free port with an environment of the test's
 * choosing, and stops it. The build itself happens once per run, in test/setup/console.ts.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { freePort } from '../setup/redis-server';

export interface ConsoleServer {
  readonly url: string;
  readonly process: ChildProcess;
  /** Everything the server printed so far (for failure messages). */
  readonly output: string;
  stop(): Promise<void>;
}

const NEXT_BIN = path.resolve('node_modules/next/dist/bin/next');
const START_TIMEOUT_MS = 30_000;

export async function startConsole(env: Record<string, string>): Promise<ConsoleServer> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(
    process.execPath,
    [NEXT_BIN, 'start', '-p', String(port), '-H', '127.0.0.1'],
    {
      // Minimal: nothing from the developer's shell (an OXMQ_READ_ONLY, say) leaks in.
      env: {
        NODE_ENV: 'production',
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        NEXT_TELEMETRY_DISABLED: '1',
        NEXTAUTH_URL: url,
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  child.stdout?.on('data', (chunk) => (output += chunk));
  child.stderr?.on('data', (chunk) => (output += chunk));
  const exited = new Promise<never>((_, reject) =>
    child.once('exit', (code) => reject(new Error(`next start exited with ${code}:\n${output}`))),
  );
  exited.catch(() => undefined);

  const deadline = Date.now() + START_TIMEOUT_MS;
  const ready = (async () => {
    for (;;) {
      try {
        // Any answer (even 503: Redis may be down on purpose) means the server is up.
        await fetch(`${url}/api/health`);
        return;
      } catch {
        if (Date.now() > deadline) throw new Error(`next start did not answer:\n${output}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  })();
  try {
    await Promise.race([ready, exited]);
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }

  return {
    url,
    process: child,
    get output() {
      return output;
    },
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const gone = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await gone;
    },
  };
}
