/**
 * How the conformance suite runs: every scenario runs once per storage (River's driver suite is
 * the model), on fresh, empty queues from that storage's factory. A scenario names the interface
 * methods it covers, and the harness holds it to that: the interfaces it is handed record their
 * calls, and a scenario that did not call a method it claims fails. coverage.test.ts compares
 * the claims with the interfaces' methods.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { EventLogReader, FlowStorage, QueueKeys, QueueStorage } from 'oxmq/internals';
import type { InterfaceMethod, StorageInterface } from './interface-methods';

/** One queue's storage, with the flows and event log of the same storage. */
export interface StorageUnderTest {
  keys: QueueKeys;
  queue: QueueStorage;
  flows: FlowStorage;
  /** Over a connection of the reader's own (reads may block it). */
  events: EventLogReader;
  close(): Promise<void>;
}

/** Makes the storage of a new, empty queue (a new queue name each call, one storage). */
export type StorageFactory = () => Promise<StorageUnderTest> | StorageUnderTest;

export interface ScenarioContext {
  /** A fresh queue's storage. */
  made: StorageUnderTest;
  /** Another fresh queue of the same storage (flows across queues). */
  fresh(): Promise<StorageUnderTest>;
}

export interface Scenario {
  title: string;
  /** The interface methods this scenario calls and checks the effect of. */
  covers: readonly InterfaceMethod[];
  run(context: ScenarioContext): Promise<void>;
}

/** Wraps `target` so that each method call is added to `calls` as `<label>.<method>`. */
function recording<T extends object>(target: T, label: StorageInterface, calls: Set<string>): T {
  return new Proxy(target, {
    get(object, property, receiver) {
      const value: unknown = Reflect.get(object, property, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        calls.add(`${label}.${String(property)}`);
        return (value as (...a: unknown[]) => unknown).apply(object, args);
      };
    },
  });
}

function recorded(made: StorageUnderTest, calls: Set<string>): StorageUnderTest {
  return {
    ...made,
    queue: {
      backend: recording(made.queue.backend, 'QueueBackend', calls),
      ops: recording(made.queue.ops, 'QueueOperations', calls),
      groups: recording(made.queue.groups, 'GroupOperations', calls),
      schedulers: recording(made.queue.schedulers, 'SchedulerStorage', calls),
      workers: recording(made.queue.workers, 'WorkerRegistry', calls),
      history: recording(made.queue.history, 'TimingHistoryStore', calls),
    },
    flows: recording(made.flows, 'FlowStorage', calls),
    events: recording(made.events, 'EventLogReader', calls),
  };
}

/** Runs every scenario of `sets` against the storage `factory` makes. */
export function describeConformance(
  label: string,
  factory: StorageFactory,
  sets: Record<string, readonly Scenario[]>,
): void {
  describe(`storage conformance: ${label}`, () => {
    const open: StorageUnderTest[] = [];
    afterEach(async () => {
      for (const made of open.splice(0)) await made.close();
    });
    for (const [area, scenarios] of Object.entries(sets)) {
      describe(area, () => {
        for (const scenario of scenarios) {
          it(scenario.title, async () => {
            const calls = new Set<string>();
            const fresh = async () => {
              const made = await factory();
              open.push(made);
              return recorded(made, calls);
            };
            await scenario.run({ made: await fresh(), fresh });
            const unused = scenario.covers.filter((method) => !calls.has(method));
            expect(unused, 'methods the scenario claims to cover but never called').toEqual([]);
          });
        }
      });
    }
  });
}
