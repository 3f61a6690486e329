/**
 * The launcher's data folder holds secrets and every job's payload (the embedded Redis' files),
 * so on a shared host nobody but the owner may read it: folders 0700, files 0600, whatever the
 * umask. A folder an older launcher created 0755 is tightened at the next start.
 */
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';

const PRIVATE_DIR = 0o700;
const PRIVATE_FILE = 0o600;

/**
 * Creates `dir` if needed and makes it 0700. With `contents`, everything below it becomes
 * owner-only too (folders 0700, files 0600; symbolic links are left alone).
 */
export function makePrivateDir(dir: string, options: { contents?: boolean } = {}): void {
  mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR });
  chmodSync(dir, PRIVATE_DIR);
  if (options.contents) tightenContents(dir);
}

function tightenContents(dir: string): void {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const target = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      chmodSync(target, PRIVATE_DIR);
      tightenContents(target);
    } else if (entry.isFile()) chmodSync(target, PRIVATE_FILE);
  }
}

/** Writes `value` as JSON to `file` (mode 0600) in a private folder. */
export function writeSecretFile(file: string, value: unknown): void {
  makePrivateDir(path.dirname(file));
  writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`, { mode: PRIVATE_FILE });
  chmodSync(file, PRIVATE_FILE);
}

/** The parsed JSON of `file` (made 0600 again), or undefined when it is missing or unreadable. */
export function readSecretFile(file: string): unknown {
  if (!existsSync(file) || !lstatSync(file).isFile()) return undefined;
  chmodSync(file, PRIVATE_FILE);
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as unknown;
  } catch {
    return undefined;
  }
}
