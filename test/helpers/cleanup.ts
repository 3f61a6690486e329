import { afterEach } from 'vitest';

type Closable = { close: () => Promise<unknown> } | { quit: () => Promise<unknown> };

/** What useCleanup() returns: hand it anything to close after the test, get the thing back. */
export type Track = <T extends Closable>(thing: T) => T;

/**
 * Registers an afterEach that closes everything passed to the returned `track` during a test,
 * so a failing assertion never leaks workers or connections into the next test.
 */
export function useCleanup(): Track {
  const open: Closable[] = [];
  afterEach(async () => {
    await Promise.all(
      open
        .splice(0)
        .map((thing) => ('close' in thing ? thing.close() : thing.quit()).catch(() => undefined)),
    );
  });
  return (thing) => {
    open.push(thing);
    return thing;
  };
}
