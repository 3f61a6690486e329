/** The route files under app/api/, each with the API path its folder gives it. */
import { readdirSync } from 'node:fs';
import path from 'node:path';

export interface ApiRouteFile {
  /** Absolute, to import. */
  file: string;
  /** `[id]` becomes `:id` and a catch-all (`[...x]`, `[[...x]]`) `*`, as lib/api-routes/ writes them. */
  path: string;
}

export function apiRouteFiles(root = path.resolve('app/api')): ApiRouteFile[] {
  return readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name === 'route.ts')
    .map((entry) => {
      const folders = path.relative(root, entry.parentPath).split(path.sep).filter(Boolean);
      const segments = folders
        .filter((folder) => !folder.startsWith('(')) // a route group is not in the URL
        .map((folder) => (/^\[\[?\.\.\./.test(folder) ? '*' : folder.replace(/^\[(.+)\]$/, ':$1')));
      return {
        file: path.join(entry.parentPath, entry.name),
        path: ['/api', ...segments].join('/'),
      };
    })
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
