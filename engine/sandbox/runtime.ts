/**
 * Where a sandbox child's code lives and how Node must be started to run it. Children run the
 * TypeScript entry child-main.ts (and the user's processor, often .ts too) through tsx's loader,
 * resolved to absolute paths once, so a child starts the same from any working directory.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ValidationError } from '../errors';

export interface SandboxRuntime {
  /** Absolute path of child-main.ts. */
  entryFile: string;
  /** file: URL of tsx's `--import` loader (ESM and CommonJS hooks), for child processes. */
  tsxLoaderUrl: string;
  /** file: URL of tsx's ESM register API, for worker threads (where `--import` does not apply). */
  tsxEsmApiUrl: string;
  /** Absolute path of tsx's CommonJS register API, for worker threads. */
  tsxCjsApiPath: string;
}

const ENTRY = 'child-main.ts';

function findEntry(): string {
  // The engine runs from source (tests, the runner) and from Next's server bundle, which keeps
  // the repository layout: the entry sits next to this file or under the working directory.
  const candidates = [
    path.join(__dirname, ENTRY),
    path.resolve(process.cwd(), 'engine', 'sandbox', ENTRY),
  ];
  const found = candidates.find((file) => existsSync(file));
  if (!found) {
    throw new ValidationError(`OxMQ sandbox entry not found (looked in ${candidates.join(', ')})`);
  }
  return found;
}

/** Narrows `exports[subpath].import.default` of a package.json without trusting its shape. */
function importTarget(exportsField: unknown, subpath: string): string | undefined {
  if (typeof exportsField !== 'object' || exportsField === null) return undefined;
  const entry = (exportsField as Record<string, unknown>)[subpath];
  if (typeof entry !== 'object' || entry === null) return undefined;
  const conditions = (entry as Record<string, unknown>).import;
  if (typeof conditions === 'string') return conditions;
  if (typeof conditions !== 'object' || conditions === null) return undefined;
  const target = (conditions as Record<string, unknown>).default;
  return typeof target === 'string' ? target : undefined;
}

function findTsx(): Omit<SandboxRuntime, 'entryFile'> {
  const bases = [__filename, path.join(process.cwd(), 'package.json')];
  for (const base of bases) {
    try {
      const requireFrom = createRequire(base);
      const packageJson = requireFrom.resolve('tsx/package.json');
      const manifest = JSON.parse(readFileSync(packageJson, 'utf8')) as { exports?: unknown };
      const esmApi = importTarget(manifest.exports, './esm/api');
      if (!esmApi) continue;
      return {
        tsxLoaderUrl: pathToFileURL(requireFrom.resolve('tsx')).href,
        tsxEsmApiUrl: pathToFileURL(path.resolve(path.dirname(packageJson), esmApi)).href,
        tsxCjsApiPath: requireFrom.resolve('tsx/cjs/api'),
      };
    } catch {
      // Not resolvable from this base: try the next one.
    }
  }
  throw new ValidationError('Sandboxed processors need the tsx package (npm install tsx)');
}

let cached: SandboxRuntime | undefined;

/** Resolved once per process; throws ValidationError when the entry or tsx is missing. */
export function sandboxRuntime(): SandboxRuntime {
  cached ??= { entryFile: findEntry(), ...findTsx() };
  return cached;
}

/**
 * The parent's Node flags worth passing on to a child process: memory limits, source maps and
 * warning switches. Everything else is left out on purpose: loaders and `--require` hooks of the
 * parent (vitest's, or a second copy of tsx), `--conditions`, and inspector ports would change
 * how the child resolves modules or make it fail to start.
 */
const INHERITED_FLAGS = [
  '--max-old-space-size=',
  '--max-semi-space-size=',
  '--stack-size=',
  '--enable-source-maps',
  '--no-warnings',
  '--no-deprecation',
  '--trace-warnings',
  '--trace-uncaught',
];

export function childExecArgv(parentExecArgv: readonly string[], loaderUrl: string): string[] {
  const inherited = parentExecArgv.filter((flag) =>
    INHERITED_FLAGS.some((allowed) =>
      allowed.endsWith('=') ? flag.startsWith(allowed) : flag === allowed,
    ),
  );
  return [...inherited, '--import', loaderUrl];
}
