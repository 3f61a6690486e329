/**
 * /health is answered to whoever reaches the health port, so it names modules relative to their
 * processors folder (`emails.ts`, not `/home/deploy/app/processors/emails.ts`) and takes the
 * machine's absolute paths out of load errors. The runner's own log keeps the absolute paths.
 */
import os from 'node:os';
import path from 'node:path';

export interface HealthPaths {
  /** A module or folder as /health shows it. */
  file(absolute: string): string;
  /** An error message with the processors folders, the working directory and home left out. */
  text(message: string): string;
}

export function healthPaths(
  folders: readonly string[],
  cwd: string = process.cwd(),
  home: string = os.homedir(),
): HealthPaths {
  // Longest first, so a folder inside another one is matched before its parent.
  const byLength = [...folders].sort((a, b) => b.length - a.length);
  const file = (absolute: string): string => {
    for (const folder of byLength) {
      if (absolute === folder) return path.basename(folder);
      const relative = path.relative(folder, absolute);
      if (relative && !relative.startsWith('..') && !path.isAbsolute(relative)) return relative;
    }
    return path.basename(absolute);
  };
  const prefixes: [from: string, to: string][] = [
    ...byLength.map((folder): [string, string] => [folder + path.sep, '']),
    ...byLength.map((folder): [string, string] => [folder, path.basename(folder)]),
    [cwd + path.sep, ''],
  ];
  // Only a real home folder: `/` as home would strip every path's leading slash.
  if (home.length > 1) prefixes.push([home + path.sep, '~/']);
  const text = (message: string): string =>
    prefixes.reduce((result, [from, to]) => result.split(from).join(to), message);
  return { file, text };
}
