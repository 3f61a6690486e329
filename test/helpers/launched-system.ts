/**
 * The README's start command run as a newcomer runs it: a copy of the repository in a temporary
 * folder (the files git would clone: tracked, plus new ones not ignored), `npm ci` there, then
 * `npm start` as a child process whose output a test reads line by line.
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Copies what a clone of the checkout would hold into a new temporary folder; returns it. */
export function copyRepository(): string {
  const target = mkdtempSync(path.join(os.tmpdir(), 'oxmq-clone-'));
  const listed = execFileSync(
    'git',
    ['ls-files', '-z', '--cached', '--others', '--exclude-standard'],
    { cwd: repoRoot, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
  );
  for (const file of listed.split('\0')) {
    if (!file || !existsSync(path.join(repoRoot, file))) continue;
    mkdirSync(path.dirname(path.join(target, file)), { recursive: true });
    copyFileSync(path.join(repoRoot, file), path.join(target, file));
  }
  return target;
}

/** `npm ci` in `dir` (from npm's cache when it has the packages, as after the suite's own install). */
export function npmCi(dir: string): void {
  const result = spawnSync('npm', ['ci', '--prefer-offline', '--no-audit', '--no-fund'], {
    cwd: dir,
    encoding: 'utf8',
    timeout: 300_000,
  });
  if (result.status !== 0) {
    throw new Error(`npm ci failed (${result.status}):\n${result.stdout}\n${result.stderr}`);
  }
}

export interface LaunchedSystem {
  /** Every line printed so far, stdout and stderr together. */
  readonly lines: readonly string[];
  waitForLine(match: RegExp, timeoutMs: number): Promise<RegExpMatchArray>;
  signal(signal: NodeJS.Signals): void;
  /**
   * The signal to npm's whole process group, as a terminal sends Ctrl-C to the foreground job
   * (npm, and the launcher it runs); only with `ownProcessGroup`.
   */
  signalGroup(signal: NodeJS.Signals): void;
  /** Resolves with the exit code (null when killed by a signal). */
  readonly exited: Promise<number | null>;
  running(): boolean;
  output(): string;
}

export interface NpmStartOptions {
  /** npm leads a process group of its own, as a shell's foreground job does (signalGroup). */
  ownProcessGroup?: boolean;
}

/** `npm start [-- args]` in `dir` with exactly `env` (plus PATH and HOME). */
export function npmStart(
  dir: string,
  env: Record<string, string>,
  args: readonly string[] = [],
  options: NpmStartOptions = {},
): LaunchedSystem {
  const child = spawn('npm', ['start', ...(args.length > 0 ? ['--', ...args] : [])], {
    cwd: dir,
    // Next's types make NODE_ENV a required key of ProcessEnv; the launcher sets its own.
    env: {
      NODE_ENV: 'production' as const,
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? os.tmpdir(),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: options.ownProcessGroup === true,
  });
  const lines: string[] = [];
  const waiters = new Set<() => void>();
  let exitCode: number | null | undefined;
  for (const stream of [child.stdout, child.stderr]) {
    let rest = '';
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => {
      const parts = (rest + chunk).split('\n');
      rest = parts.pop() ?? '';
      lines.push(...parts);
      for (const wake of waiters) wake();
    });
  }
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => {
      exitCode = code;
      for (const wake of waiters) wake();
      resolve(code);
    }),
  );
  const output = () => lines.join('\n');

  const waitForLine = (match: RegExp, timeoutMs: number) =>
    new Promise<RegExpMatchArray>((resolve, reject) => {
      const check = () => {
        for (const line of lines) {
          const found = match.exec(line);
          if (found) {
            done();
            resolve(found);
            return;
          }
        }
        if (exitCode !== undefined) {
          done();
          reject(new Error(`npm start exited (${exitCode}) before ${match}\n${output()}`));
        }
      };
      const timer = setTimeout(() => {
        done();
        reject(new Error(`no line matching ${match} within ${timeoutMs} ms\n${output()}`));
      }, timeoutMs);
      const done = () => {
        clearTimeout(timer);
        waiters.delete(check);
      };
      waiters.add(check);
      check();
    });

  return {
    lines,
    waitForLine,
    signal: (name) => child.kill(name),
    signalGroup(name) {
      if (!options.ownProcessGroup || child.pid === undefined)
        throw new Error('signalGroup needs npmStart(..., { ownProcessGroup: true })');
      process.kill(-child.pid, name);
    },
    exited,
    running: () => exitCode === undefined,
    output,
  };
}
