import { DelayedError } from 'oxmq/internals';

/** Fixture: postpones its job by a minute with a DelayedError that carries the move. */
export default async function delays() {
  throw new DelayedError({ delay: 60_000 });
}
