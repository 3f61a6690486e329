/** The history charts of the metrics pages, one figure each (history-chart-parts.tsx). */
export { BacklogFigure } from './backlog-figure';
export { FailureRateFigure } from './failure-rate-figure';
export { NO_BACKLOG_TEXT, NO_OUTCOMES_TEXT } from './history-chart-parts';
export { ThroughputFigure } from './throughput-figure';
export { TimingFigure } from './timing-figure';
