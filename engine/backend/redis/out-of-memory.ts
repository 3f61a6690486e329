import { RedisOutOfMemoryError } from '../../errors';

/**
 * Redis's refusal of a write at `maxmemory` under `noeviction` starts with "OOM " (ioredis raises
 * it as a plain ReplyError). Inside MULTI, Redis refuses the queued commands instead, and EXEC
 * then answers EXECABORT; ioredis lists the refusals on that error as `previousErrors`.
 */
function isOutOfMemory(error: unknown): error is Error {
  if (!(error instanceof Error)) return false;
  if (error.message.startsWith('OOM ')) return true;
  const previous = (error as { previousErrors?: unknown }).previousErrors;
  return (
    error.message.startsWith('EXECABORT') &&
    Array.isArray(previous) &&
    previous.some((refusal) => isOutOfMemory(refusal))
  );
}

/** The typed error for Redis's out-of-memory refusal (the original as its cause), else `error`. */
export function typedOutOfMemory(error: unknown): unknown {
  return isOutOfMemory(error) ? new RedisOutOfMemoryError(undefined, error) : error;
}

/** Awaits `pending`, raising RedisOutOfMemoryError in place of Redis's OOM refusal. */
export async function refusingOutOfMemory<T>(pending: Promise<T>): Promise<T> {
  try {
    return await pending;
  } catch (error) {
    throw typedOutOfMemory(error);
  }
}
