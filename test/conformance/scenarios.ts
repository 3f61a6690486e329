/**
 * Every scenario set of the conformance suite, by area: what each storage's test runs
 * (redis-backend.test.ts) and what coverage.test.ts measures against the interfaces.
 */
import { backendScenarios } from './backend-scenarios';
import type { Scenario } from './harness';
import { storageScenarios } from './storage-scenarios';

export const SCENARIO_SETS: Record<string, readonly Scenario[]> = {
  'queue backend': backendScenarios,
  'flows, schedulers and the event log': storageScenarios,
};
