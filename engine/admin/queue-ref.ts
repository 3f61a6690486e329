/** A queue as the console names it: its key prefix and its name. */
export interface QueueRef {
  prefix: string;
  name: string;
}
