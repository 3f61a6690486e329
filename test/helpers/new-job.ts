import type { NewJob } from 'oxmq/internals';

/** A job as a backend's addJob takes it: a plain job now, with `overrides`. */
export function newJob(overrides: Partial<NewJob> = {}): NewJob {
  return {
    name: 'job',
    data: '{}',
    opts: '{"attempts":0}',
    timestamp: Date.now(),
    delay: 0,
    priority: 0,
    lifo: false,
    fields: {},
    ...overrides,
  };
}
