/**
 * Every scenario set of the conformance suite, by area: what each storage's test runs
 * (redis-backend.test.ts, memory-backend.test.ts) and what coverage.test.ts measures against
 * the interfaces.
 */
import { backendScenarios } from './backend-scenarios';
import { dependencyScenarios } from './dependency-scenarios';
import { groupScenarios } from './group-scenarios';
import { historyScenarios } from './history-scenarios';
import type { Scenario } from './harness';
import { jobMoveScenarios } from './job-move-scenarios';
import { queueControlScenarios } from './queue-control-scenarios';
import { storageScenarios } from './storage-scenarios';
import { wakeScenarios } from './wake-scenarios';
import { workerScenarios } from './worker-scenarios';

export const SCENARIO_SETS: Record<string, readonly Scenario[]> = {
  'queue backend': backendScenarios,
  'job moves': jobMoveScenarios,
  'queue controls': queueControlScenarios,
  'children of a job': dependencyScenarios,
  'tenant groups': groupScenarios,
  'waking workers': wakeScenarios,
  'live workers': workerScenarios,
  'timing history': historyScenarios,
  'flows, schedulers and the event log': storageScenarios,
};
