/**
 * Test-only entry: engine internals that the repository's own tests exercise directly (key
 * layout, script registration, backend operations, parsers). Not part of the package: the
 * built `oxmq` exports only `.` and `./admin` (engine/package.json); inside this repository the
 * name `oxmq/internals` resolves here through tsconfig paths and the test configs' aliases.
 */
export { DEFAULTS, FLOW_LIMITS } from './defaults';
export {
  DelayedError,
  JobBelongsToSchedulerError,
  JobNotFoundError,
  JobNotInStateError,
  QueueStateError,
  ValidationError,
} from './errors';
export { Job, type FinishedEventsSource } from './job/job';
export { JobScheduler, type RepeatOptions } from './scheduler/job-scheduler';
export { acceptedJobOptions, validateJobOptions } from './job/options';
export { JOB_OPTION_ALIASES, JOB_OPTION_FIELDS } from './job/option-schema';
export { resolveOptionAliases } from './job/option-aliases';
export { QueueEvents, type QueueEventsOptions } from './queue/events';
export { GROUP_KEY_PARTS, QueueKeys } from './queue/keys';
export { readFlow, type ReadFlowOptions } from './flow/reader';
export { OXMQ_VERSION } from './version';
export { ALL_SCRIPTS, commandName, registerScripts } from './scripts/loader';
export { SCRIPTS } from './scripts/registry.generated';
export { inlineIncludes } from './scripts/lua-includes';
export { scriptKeys } from './scripts/script-keys';
export { scriptError, throwIfErrorCode } from './scripts/error-codes';
export { execTransaction, queueScript, runScript } from './backend/redis/run-script';
export { readAtomically } from './backend/redis/atomic-reads';
export type { FetchIdentity, NewJob, QueueBackend } from './backend/queue-backend';
export type { QueueOperations } from './backend/queue-operations';
export type { QueueStorage } from './backend/storage';
export type { EventLogReader } from './backend/event-log';
export type { FlowStorage } from './backend/flow-storage';
export { RedisQueueBackend } from './backend/redis/redis-queue-backend';
export { RedisQueueOperations } from './backend/redis/redis-queue-operations';
export { RedisChores } from './backend/redis/queue-chores';
export { jobIdOfQueueKey } from './backend/redis/remove-orphaned-jobs';
export { completionBatchLimit } from './worker/completion-batcher';
export { ADD_CALLS_IN_FLIGHT } from './backend/redis/add-coalescer';
export { jobTable } from './backend/redis/add-job';
export { prepareJob } from './job/prepare';
export { HEARTBEAT_INDEX_KEEP_MS } from './worker/heartbeat';
export { workerRecordKey, workersIndexKey, workerWakeKey } from './worker/heartbeat-keys';
export { WorkerServices, type WorkerService } from './worker/worker-services';
export { TraceContext } from './telemetry/trace-context';
export { traceIdOf } from './telemetry/trace-id';
export { errorSignature, NO_REASON_SIGNATURE, SIGNATURE_LIMITS } from './admin/error-signature';
export {
  escapeHelp,
  escapeLabelValue,
  formatValue,
  renderFamilies,
} from './admin/redis/prometheus/text-format';
export { lastClosedMinuteCount } from './admin/redis/prometheus/closed-minute';
export { queueHandle } from './admin/queue-handle';
export { searchPrefilter, telltaleWords } from './admin/search-prefilter';
export { readJobWindow } from './admin/redis/job-window';
// The admin's raw readers: job text as stored. oxmq/admin answers them redacted (createAdmin).
export { findJob, listJobs } from './admin/jobs';
export { searchJobs } from './admin/job-search';
export { scanJobs } from './admin/job-scan';
export { getJobTimeline } from './admin/redis/job-timeline';
export { bucketOf, TIMING_BUCKET_BOUNDS_MS } from './history/buckets';
export { NAMES_PER_MINUTE, OTHER_NAMES } from './history/timing-recorder';
