/** A queue as storage knows it: its prefix and name (bullmq's `<prefix>:<name>`). */
export interface QueueRef {
  prefix: string;
  name: string;
}
