/**
 * Scrape-time queue metrics in Prometheus' text format (docs/metrics.md, "Console"): bullmq's
 * exportPrometheusMetrics families plus OxMQ's `oxmq_queue_*`, per queue or for a whole console.
 */
export { collectConsoleMetrics, CONSOLE_METRICS_DEFAULTS } from './console-metrics';
export type { ConsoleMetrics, ConsoleMetricsOptions } from './console-metrics';
export { exportQueuePrometheusMetrics } from './queue-export';
export { BULLMQ_COUNT_STATES } from './queue-snapshot';
export type { BullmqCountState, QueueSnapshot } from './queue-snapshot';
