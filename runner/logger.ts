/**
 * The runner's logs: pino JSON lines on stdout with `level` as a label, an ISO-8601 `time`, and
 * `component: "runner"` (the launcher interleaves several processes' logs).
 *
 * Every line is redacted as the console redacts job text (engine/redaction/, through
 * `oxmq/admin`): a job's failure reason, a worker error or a load error often carries the
 * secret the processor used (`login failed password=...`, a connection URL), and these lines
 * end up in the launcher's output and in log collectors. The whole serialized line is redacted,
 * so no field a call site adds (reason, err.message, err.stack, msg) can slip past.
 */
import { redactString } from 'oxmq/admin';
import pino, { type Logger } from 'pino';
import type { LogLevel } from '../config/fields';

export type { Logger } from 'pino';

/** One serialized line (JSON and a newline): parsed and redacted by key and as text. */
export function redactLogLine(line: string): string {
  const body = line.endsWith('\n') ? line.slice(0, -1) : line;
  const redacted = redactString(body);
  return redacted === body ? line : `${redacted}${line.slice(body.length)}`;
}

export function createRunnerLogger(level: LogLevel, destination?: pino.DestinationStream): Logger {
  const options: pino.LoggerOptions = {
    level,
    base: { component: 'runner' },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
    hooks: { streamWrite: redactLogLine },
  };
  // Synchronous writes: the runner exits right after its last line (shutdown, config error).
  return pino(options, destination ?? pino.destination({ fd: 1, sync: true }));
}
