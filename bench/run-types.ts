/**
 * What bench/main.ts hands a benchmark child (bench/child.ts) and what the child prints back;
 * shared with the scenario runners the child delegates to (bench/child-flows.ts).
 */
import type { ScenarioKind, ScenarioParams } from './scenarios';
import type { Lib, RedisCounters } from './stats';

export interface ChildConfig {
  lib: Lib;
  kind: ScenarioKind;
  params: ScenarioParams;
  port: number;
  queue: string;
}

export interface RunResult {
  lib: Lib;
  /** Jobs in the numerator of jobsPerSec (0 for idle). */
  jobs: number;
  elapsedMs: number;
  jobsPerSec: number | null;
  redis: RedisCounters;
  problems: string[];
  extra: Record<string, number | null>;
}
