/** The producer's logs: pino JSON lines with a level label, an ISO time and component "demo". */
import pino, { type Logger } from 'pino';
import type { DemoSettings } from './settings';

export function createDemoLogger(settings: Pick<DemoSettings, 'logLevel'>): Logger {
  return pino(
    {
      level: settings.logLevel,
      base: { component: 'demo' },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
    },
    // Synchronous writes: the producer exits right after its last line.
    pino.destination({ fd: 1, sync: true }),
  );
}
