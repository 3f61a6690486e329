/**
 * Writes engine/scripts/registry.generated.ts from lua/ (`npm run scripts:generate`), after
 * checking that every script's header names exactly the keys its file name counts. The rules are
 * in scripts/script-registry.ts; test/engine/script-registry.test.ts fails while the committed
 * file differs from what this writes.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { REGISTRY_FILE, renderRepositoryRegistry } from './script-registry';

async function main(): Promise<void> {
  const repoRoot = path.resolve(__dirname, '..');
  const text = await renderRepositoryRegistry(repoRoot);
  writeFileSync(path.join(repoRoot, REGISTRY_FILE), text);
  process.stdout.write(`wrote ${REGISTRY_FILE}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
