/**
 * The worker runner's public surface: the types a processor module is written against, and the
 * runner itself for programs that embed it instead of running `npm run worker`.
 */
export type { ProcessorOptions, SandboxMode } from './processor-options';
export type { ProcessorModule } from './processor-module';
export { loadProcessorModule, ProcessorLoadError } from './processor-module';
export type { ProcessorLoadErrorCode, LoadedProcessor } from './processor-module';
export { startRunner } from './runner';
export type { Runner, FailedModule } from './runner';
export { loadRunnerSettings } from './settings';
export type { RunnerSettings } from './settings';
export { createRunnerLogger } from './logger';
