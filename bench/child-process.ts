/**
 * The parent side of every benchmark run (bench/main.ts, bench/cluster.ts): spawn one fresh
 * child process with its JSON config, pass its stderr through as it comes, and take the last
 * stdout line as the run's JSON result.
 */
import { spawn } from 'node:child_process';

export function runBenchChild<Result>(
  childFile: string,
  config: object,
  options: { label: string; nodeArgs?: readonly string[] },
): Promise<Result> {
  return new Promise((resolve, reject) => {
    const args = [...(options.nodeArgs ?? []), childFile, JSON.stringify(config)];
    const child = spawn(process.execPath, args, {
      cwd: process.cwd(),
      env: process.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      process.stderr.write(chunk);
    });
    child.once('error', reject);
    child.once('exit', (code) => {
      const line = stdout.trim().split('\n').pop() ?? '';
      if (code !== 0 || !line) {
        reject(new Error(`${options.label} child exited ${code}: ${stderr.trim()}`));
        return;
      }
      resolve(JSON.parse(line) as Result);
    });
  });
}
