/** `npm run build`: builds the console and records what it was built from (see console-build). */
import path from 'node:path';
import { buildConsole } from './console-build';

buildConsole(path.resolve(__dirname, '..'), (line) => process.stdout.write(`${line}\n`)).catch(
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
