/**
 * OxMQ's public surface. Everything not exported here is internal and may change.
 */
export { Queue } from './queue/queue';
export type { BulkJob, WorkerInfo } from './queue/queue';
export type { CancelRequestOutcome } from './backend/queue-operations';
export type { QueueMeta } from './queue/meta';
export type { DependencyItem, DependencyListing } from './backend/queue-operations';
export { Worker, workerConnectionName } from './worker/worker';
export type { Processor, GracefulCloseReport } from './worker/worker';
export type { GetNextJobOptions, WorkerListener } from './worker/worker-listener';
export { BatchWorker, BATCH_DEFAULTS } from './worker/batch-worker';
export type { BatchProcessor, BatchWorkerOptions } from './worker/batch-worker';
export { SandboxCrashError, SandboxLoadError } from './sandbox/errors';
export { WorkerServiceStartError } from './worker/worker-services';
export { redisStorage } from './backend/redis/redis-storage';
export { memoryStorage } from './backend/memory/memory-storage';
export type {
  ConnectRequest,
  QueueRef,
  QueueStorage,
  Storage,
  StorageConnection,
  StorageContext,
  StorageRole,
} from './backend/storage';
export type { WorkerRegistry, HeartbeatReply } from './backend/worker-registry';
export type { TimingHistoryStore, HistoryEntry } from './backend/timing-history';
export type { RedisQueueChores } from './backend/redis-queue-chores';
export type { QueueBackend, WaitOptions, WaitOutcome } from './backend/queue-backend';
export type { EventLogEntry, EventLogReader } from './backend/event-log';
export type {
  FlowNodeOutcome,
  FlowNodeWrite,
  FlowRefusal,
  FlowStorage,
  StoredFlowNode,
} from './backend/flow-storage';
export type { SchedulerStorage } from './backend/scheduler-storage';
export type { GroupOperations, QueueOperations } from './backend/queue-operations';
export type { SandboxedJob } from './sandbox/child-job';
export { FlowProducer } from './flow/producer';
export type { FlowJob, FlowChildJob, FlowOpts, JobNode } from './flow/producer';
export type { ReadFlowOptions } from './flow/reader';
export { QueueEvents } from './queue/events';
export type { QueueEventsOptions, QueueEventsListener, QueueEventArgs } from './queue/events';
export { QueueEventsProducer } from './queue/events-producer';
export type { QueueEventsProducerOptions } from './queue/events-producer';
export { Job, truncateUtf8 } from './job/job';
export type { ParentLink, FinishedEventsSource, JobAdder } from './job/job';
export type { JobJson } from './job/json';
export type { NextJobTuple } from './job/manual-finish';
export type {
  DependencyOpts,
  DependenciesOpts,
  Dependencies,
  DependencyCountsOpts,
  DependencyCounts,
} from './job/dependencies';
export { QueueKeys, QUEUE_KEY_NAMES } from './queue/keys';
export {
  JobSchedulerIdCollisionError,
  JobSchedulerNotFoundError,
  JobSchedulerPausedStateError,
  JobSchedulerSlotsBusyError,
} from './scheduler/job-scheduler';
export type {
  RepeatOptions,
  JobSchedulerTemplate,
  JobSchedulerJson,
} from './scheduler/job-scheduler';
export type { DeduplicationOptions, GroupOptions, JobTelemetryOptions } from './job/options';
export type { GroupInfo, GroupDefaults } from './backend/queue-operations';
export type { Metrics } from './backend/queue-backend';
export { TraceContext } from './telemetry/trace-context';
export type {
  Telemetry,
  TelemetryTracer,
  TelemetrySpan,
  TelemetryContextManager,
  TelemetryMeter,
} from './telemetry/bullmq-telemetry';
export { TelemetrySpanKind } from './telemetry/bullmq-telemetry';
export { WORKER_METRIC_NAMES, PROCESSING_BUCKETS, WAIT_BUCKETS } from './telemetry/worker-metrics';
export { computeBackoffDelay, UnknownBackoffStrategyError } from './job/backoff';
export type { BackoffStrategy } from './job/backoff';
export * from './errors';
export type { BackoffOptions, DurableOptions, JobsOptions, KeepJobs } from './job/options';
/** The job options' declarations, for validating options where they come in (forms, APIs). */
export { consoleJobOptionsSchema, jobOptionsSchema } from './job/option-schema';
export type { QueueOptions, QueueBaseOptions } from './queue/options';
export type { WorkerOptions, RateLimiterOptions, TimingHistoryOptions } from './worker/options';
export type { ConnectionOptions, RedisClient } from './backend/redis/connection';
export { maskRedisUrl } from './backend/redis/url-mask';
export type { JobState, JobStateReply, CleanState } from './backend/queue-operations';
export { DEFAULTS } from './defaults';
export { OXMQ_VERSION } from './version';
