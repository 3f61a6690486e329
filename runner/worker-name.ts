/**
 * The name a runner gives the worker of a processor module that names none itself: the module's
 * file name without its extension (`processors/send-email.ts` → `send-email`). The Worker's name
 * is in its Redis client name and its heartbeat record, so consoles and `queue.getWorkers()`
 * say which module runs, and bullmq writes it to each job it processes (`processedBy`).
 */
import path from 'node:path';

export function moduleWorkerName(file: string): string {
  const base = path.basename(file);
  const dot = base.lastIndexOf('.');
  return dot > 0 ? base.slice(0, dot) : base;
}
