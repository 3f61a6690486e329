/**
 * Finding processor modules: the files at the top level of each processors folder that are
 * code (.ts .mts .cts .js .mjs .cjs), not declarations (.d.ts), tests (*.test.*) or private
 * helpers (a leading `_` or `.`). Sorted, so start-up order and logs are stable.
 */
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';

const MODULE_EXTENSION = /\.(?:[mc]?ts|[mc]?js)$/;
const DECLARATION = /\.d\.[mc]?ts$/;
const TEST_FILE = /\.test\.[^.]+$/;

export function isProcessorFileName(name: string): boolean {
  return (
    MODULE_EXTENSION.test(name) &&
    !DECLARATION.test(name) &&
    !TEST_FILE.test(name) &&
    !name.startsWith('_') &&
    !name.startsWith('.')
  );
}

export interface Discovery {
  /** Absolute paths of the modules found, folder by folder in the order given. */
  readonly files: string[];
  /** Folders that could not be read (missing, not a folder, no permission). */
  readonly unreadable: { folder: string; error: string }[];
}

export function discoverProcessorFiles(folders: readonly string[]): Discovery {
  const files: string[] = [];
  const unreadable: Discovery['unreadable'] = [];
  for (const folder of folders) {
    let entries;
    try {
      entries = readdirSync(folder, { withFileTypes: true });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      unreadable.push({
        folder,
        error: code === 'ENOENT' ? 'processors folder not found' : `cannot read folder (${code})`,
      });
      continue;
    }
    const names = entries
      .filter((entry) => isProcessorFileName(entry.name))
      // A symlink to a file is a file here; to a folder it is not.
      .filter(
        (entry) =>
          entry.isFile() || (entry.isSymbolicLink() && isFile(path.join(folder, entry.name))),
      )
      .map((entry) => entry.name)
      .sort();
    for (const name of names) {
      const file = path.join(folder, name);
      if (!files.includes(file)) files.push(file);
    }
  }
  return { files, unreadable };
}

function isFile(file: string): boolean {
  try {
    return statSync(file).isFile();
  } catch {
    return false;
  }
}
