/**
 * A project outside the repository that installs the built `oxmq` package as a team would: the
 * tarball `npm pack` makes of engine/, installed with `npm ci --offline` from a lock file whose
 * entries for the package's dependencies are copied from this repository's lock, so the exact
 * versions come from the npm cache the repository's own install filled (no network).
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

export const REPO_ROOT = path.resolve(import.meta.dirname, '..', '..');
const ENGINE_DIR = path.join(REPO_ROOT, 'engine');
const FIXTURES = path.join(import.meta.dirname, 'consumer');

interface LockEntry {
  version?: string;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  [field: string]: unknown;
}
type LockPackages = Record<string, LockEntry>;

export const run = promisify(execFile);

/** Builds engine/ and packs it into `into`; returns the tarball's file name. */
export async function buildAndPack(into: string): Promise<string> {
  await run('npm', ['run', 'build', '--silent'], { cwd: ENGINE_DIR });
  const { stdout } = await run('npm', ['pack', '--silent', '--pack-destination', into], {
    cwd: ENGINE_DIR,
  });
  const tarball = stdout.trim().split('\n').pop()!;
  if (!readdirSync(into).includes(tarball)) throw new Error(`npm pack made no ${tarball}`);
  return tarball;
}

/** Where Node would find `name` when required from the package installed at `from`. */
function locate(packages: LockPackages, from: string, name: string): string | null {
  for (let dir = from; ;) {
    const candidate = dir === '' ? `node_modules/${name}` : `${dir}/node_modules/${name}`;
    if (packages[candidate]) return candidate;
    if (dir === '') return null;
    const cut = dir.lastIndexOf('/node_modules/');
    dir = cut === -1 ? '' : dir.slice(0, cut);
  }
}

/** The lock entries of `roots` and everything they depend on, at the repository's paths. */
export function lockClosure(packages: LockPackages, roots: Record<string, string>): LockPackages {
  const picked: LockPackages = {};
  const visit = (from: string, name: string, optional: boolean) => {
    const at = locate(packages, from, name);
    if (at === null) {
      if (optional) return;
      throw new Error(`${name} (needed by ${from || 'the consumer'}) is not in package-lock.json`);
    }
    if (picked[at]) return;
    const entry = packages[at]!;
    if (entry.link) throw new Error(`${at} is a workspace link, not an installable package`);
    picked[at] = entry;
    for (const dep of Object.keys(entry.dependencies ?? {})) visit(at, dep, false);
    for (const dep of Object.keys(entry.optionalDependencies ?? {})) visit(at, dep, true);
  };
  for (const name of Object.keys(roots)) visit('', name, false);
  return picked;
}

/**
 * Makes a temp project holding the packed package and the fixture sources of test/package/
 * consumer/, and installs them offline. `extra` are more dependencies, at the versions locked in
 * the repository (the TypeScript consumer needs @types/node).
 */
export async function createConsumer(extra: string[] = []): Promise<string> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'oxmq-consumer-'));
  cpSync(FIXTURES, dir, { recursive: true });
  const tarball = await buildAndPack(dir);
  const repoLock = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package-lock.json'), 'utf8')) as {
    packages: LockPackages;
  };
  const engine = repoLock.packages.engine!;
  const oxmqDeps = engine.dependencies ?? {};
  const extraDeps = Object.fromEntries(
    extra.map((name) => [name, repoLock.packages[`node_modules/${name}`]?.version ?? 'missing']),
  );
  const integrity = `sha512-${createHash('sha512')
    .update(readFileSync(path.join(dir, tarball)))
    .digest('base64')}`;
  const manifest = {
    name: 'oxmq-consumer',
    version: '1.0.0',
    private: true,
    dependencies: { oxmq: `file:${tarball}`, ...extraDeps },
  };
  const lock = {
    name: manifest.name,
    version: manifest.version,
    lockfileVersion: 3,
    requires: true,
    packages: {
      '': { name: manifest.name, version: manifest.version, dependencies: manifest.dependencies },
      'node_modules/oxmq': {
        version: engine.version,
        resolved: `file:${tarball}`,
        integrity,
        license: engine.license,
        dependencies: oxmqDeps,
        peerDependencies: engine.peerDependencies,
        peerDependenciesMeta: engine.peerDependenciesMeta,
        engines: engine.engines,
      },
      ...lockClosure(repoLock.packages, { ...oxmqDeps, ...extraDeps }),
    },
  };
  writeFileSync(path.join(dir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  writeFileSync(path.join(dir, 'package-lock.json'), `${JSON.stringify(lock, null, 2)}\n`);
  await run(
    'npm',
    ['ci', '--offline', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error'],
    { cwd: dir },
  );
  return dir;
}
