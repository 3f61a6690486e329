/**
 * The resume token of the integrity walk: `<phase>:<a>:<b>`. Phases are the state structures in
 * STATE_SOURCES order, then the key scan; `a`/`b` are the phase's position (list or set offset;
 * for group lines the group's rank and the offset in its line; for the scan the SCAN cursor).
 */
export interface WalkPosition {
  phase: number;
  a: number;
  b: number;
  /** SCAN cursors can exceed 2^53: kept as text. */
  scan: string;
}

export const START: WalkPosition = { phase: 0, a: 0, b: 0, scan: '0' };

export function encodeCursor(position: WalkPosition): string {
  return `${position.phase}:${position.a}:${position.b}:${position.scan}`;
}

export function decodeCursor(cursor: string | undefined): WalkPosition {
  if (cursor === undefined) return { ...START };
  const parts = cursor.split(':');
  const numbers = parts.slice(0, 3).map(Number);
  if (
    parts.length !== 4 ||
    numbers.some((n) => !Number.isSafeInteger(n) || n < 0) ||
    !/^\d+$/.test(parts[3]!)
  ) {
    throw new Error(`invalid integrity cursor "${cursor}"`);
  }
  return { phase: numbers[0]!, a: numbers[1]!, b: numbers[2]!, scan: parts[3]! };
}
