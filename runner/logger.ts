/**
 * The runner's logs: pino JSON lines on stdout with `level` as a label, an ISO-8601 `time`, and
 * `component: "runner"` (the launcher interleaves several processes' logs).
 */
import pino, { type Logger } from 'pino';
import type { LogLevel } from '../config/fields';

export type { Logger } from 'pino';

export function createRunnerLogger(level: LogLevel, destination?: pino.DestinationStream): Logger {
  const options: pino.LoggerOptions = {
    level,
    base: { component: 'runner' },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
  };
  // Synchronous writes: the runner exits right after its last line (shutdown, config error).
  return pino(options, destination ?? pino.destination({ fd: 1, sync: true }));
}
