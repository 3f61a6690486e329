/**
 * The methods of the storage interfaces (engine/backend/), read from their source with
 * TypeScript's parser: the list the conformance suite must cover (coverage.test.ts). Reading the
 * declarations, not a copy of them, means a method added to an interface shows up here at once.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/** Each storage interface and the file that declares it. */
export const STORAGE_INTERFACES = {
  QueueBackend: 'engine/backend/queue-backend.ts',
  QueueOperations: 'engine/backend/queue-operations.ts',
  GroupOperations: 'engine/backend/queue-operations.ts',
  SchedulerStorage: 'engine/backend/scheduler-storage.ts',
  FlowStorage: 'engine/backend/flow-storage.ts',
  EventLogReader: 'engine/backend/event-log.ts',
  WorkerRegistry: 'engine/backend/worker-registry.ts',
  TimingHistoryStore: 'engine/backend/timing-history.ts',
} as const;

export type StorageInterface = keyof typeof STORAGE_INTERFACES;

/** `<interface>.<method>`, e.g. `QueueBackend.addJob`. */
export type InterfaceMethod = `${StorageInterface}.${string}`;

const repoRoot = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');

/** The method names one interface declares (properties left out), in declaration order. */
export function methodsOf(name: StorageInterface): string[] {
  const file = path.join(repoRoot, STORAGE_INTERFACES[name]);
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest);
  for (const statement of source.statements) {
    if (!ts.isInterfaceDeclaration(statement) || statement.name.text !== name) continue;
    return statement.members.flatMap((member) =>
      ts.isMethodSignature(member) && member.name && ts.isIdentifier(member.name)
        ? [member.name.text]
        : [],
    );
  }
  throw new Error(`interface ${name} not found in ${STORAGE_INTERFACES[name]}`);
}

/** Every method of every storage interface. */
export function allInterfaceMethods(): InterfaceMethod[] {
  return (Object.keys(STORAGE_INTERFACES) as StorageInterface[]).flatMap((name) =>
    methodsOf(name).map((method): InterfaceMethod => `${name}.${method}`),
  );
}
