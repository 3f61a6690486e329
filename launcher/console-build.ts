/**
 * Builds the console when its sources changed since the last build, so `npm start` on a fresh
 * clone builds once and later starts skip it, and a stale build never serves changed code. The
 * fingerprint is a hash of every file the Next build reads from the repository; it is stored
 * next to the build output in `.next/oxmq-build.json`.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** What the console build depends on, relative to the repository root. */
const BUILD_INPUTS = [
  'app',
  'components',
  'lib',
  'engine',
  'lua',
  'public',
  'types',
  'config',
  'proxy.ts',
  'instrumentation.ts',
  'next.config.js',
  'tsconfig.json',
  'package-lock.json',
];
const STAMP = path.join('.next', 'oxmq-build.json');

export function sourceFingerprint(root: string): string {
  const hash = createHash('sha256');
  for (const input of BUILD_INPUTS) {
    for (const file of filesUnder(path.join(root, input))) {
      hash.update(path.relative(root, file));
      hash.update('\0');
      hash.update(readFileSync(file));
      hash.update('\0');
    }
  }
  return hash.digest('hex');
}

function filesUnder(target: string): string[] {
  if (!existsSync(target)) return [];
  if (statSync(target).isFile()) return [target];
  return readdirSync(target, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.join(entry.parentPath, entry.name))
    .sort();
}

export function buildIsCurrent(root: string): boolean {
  const stamp = path.join(root, STAMP);
  if (!existsSync(stamp) || !existsSync(path.join(root, '.next', 'BUILD_ID'))) return false;
  try {
    const recorded = JSON.parse(readFileSync(stamp, 'utf8')) as { fingerprint?: unknown };
    return recorded.fingerprint === sourceFingerprint(root);
  } catch {
    return false;
  }
}

/** Runs `next build` with its output relayed, then records the fingerprint it was built from. */
export async function buildConsole(
  root: string,
  write: (line: string) => void = (line) => process.stdout.write(`build   | ${line}\n`),
): Promise<void> {
  const fingerprint = sourceFingerprint(root);
  const code = await new Promise<number | null>((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [path.join(root, 'node_modules', 'next', 'dist', 'bin', 'next'), 'build'],
      {
        cwd: root,
        env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1' },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    for (const stream of [child.stdout, child.stderr]) {
      let rest = '';
      stream.on('data', (chunk: Buffer) => {
        const lines = (rest + chunk.toString('utf8')).split('\n');
        rest = lines.pop() ?? '';
        for (const line of lines) write(line);
      });
      stream.on('end', () => rest && write(rest));
    }
    child.once('error', reject);
    child.once('exit', (exitCode) => resolve(exitCode));
  });
  if (code !== 0) throw new Error(`next build failed (exit ${code}); its output is above`);
  writeFileSync(
    path.join(root, STAMP),
    JSON.stringify({ fingerprint, builtAt: new Date().toISOString() }, null, 2),
  );
}
