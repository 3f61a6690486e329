/**
 * The hash a password is checked against when the username is unknown. It must cost what the
 * most expensive real check costs, or the response time tells which usernames exist: bcrypt's
 * time is set by its cost factor, so the dummy takes the highest cost among the configured
 * users' hashes. One hash per cost, made once.
 */
import bcrypt from 'bcryptjs';

/** The cost bcrypt uses when no configured hash says otherwise. */
export const DEFAULT_BCRYPT_COST = 10;

const byCost = new Map<number, string>();

function bcryptCost(hash: string): number {
  const match = /^\$2[aby]\$(\d{2})\$/.exec(hash);
  return match ? Number(match[1]) : DEFAULT_BCRYPT_COST;
}

export function dummyHashFor(hashes: Iterable<string>): string {
  let cost = DEFAULT_BCRYPT_COST;
  for (const hash of hashes) cost = Math.max(cost, bcryptCost(hash));
  let dummy = byCost.get(cost);
  if (dummy === undefined) {
    dummy = bcrypt.hashSync('not-a-configured-user', cost);
    byCost.set(cost, dummy);
  }
  return dummy;
}
