/**
 * The state structures of a queue (docs/redis-keys.md), in the order the checker walks them.
 * Every tenant group's line counts as one state, `group`.
 */
export const STATE_ORDER = [
  'wait',
  'paused',
  'group',
  'active',
  'prioritized',
  'delayed',
  'group-delayed',
  'waiting-children',
  'completed',
  'failed',
] as const;

export type StateName = (typeof STATE_ORDER)[number];

export const ZSET_STATES = [
  'prioritized',
  'delayed',
  'group-delayed',
  'waiting-children',
  'completed',
  'failed',
] as const satisfies readonly StateName[];

export const LIST_STATES = ['wait', 'paused', 'active'] as const satisfies readonly StateName[];

export const stateRank = (state: StateName): number => STATE_ORDER.indexOf(state);

/** The key of a state structure; `gid` names the line of the `group` state. */
export function stateKey(base: string, state: StateName, gid?: string): string {
  return state === 'group' ? `${base}group:${gid}:wait` : base + state;
}

/** bullmq 4 / early 5 left "0:<n>" markers in lists; they are not jobs. */
export const isLegacyMarker = (id: string): boolean => id.startsWith('0:');
