/**
 * The large-backlog verdict (backlog-verdict.ts): which SLOWLOG entries count against the engine.
 * Entries are made up here because the point is the rule, not Redis's timing.
 */
import { expect, test } from 'vitest';
import type { SlowEntry } from './backlog-slowlog';
import { judge } from './backlog-verdict';

const BOUND = 10_000;
let nextId = 0;
const entry = (micros: number, command: string, client: string, script?: string): SlowEntry => ({
  id: (nextId += 1),
  micros,
  command,
  client,
  args: [],
  ...(script ? { script } : {}),
});
const script = (micros: number, name: string) => entry(micros, 'evalsha', '1.2.3.4:5', name);

test('a script over the bound counts when Redis did not wait for a CPU', () => {
  const slow = script(20_000, 'moveToFinished');
  expect(judge([slow], BOUND, 0).over).toEqual([slow]);
  expect(judge([slow], BOUND, 9_999).over).toEqual([slow]);
});

test('a wait for a CPU as long as the time over the bound explains it', () => {
  const slow = script(20_000, 'moveToFinished');
  const verdict = judge([slow], BOUND, 10_000);
  expect(verdict.over).toEqual([]);
  expect(verdict.stalls.map((s) => s.entry)).toEqual([slow]);
});

test('the wait must cover everything over the bound in the phase together', () => {
  const first = script(16_000, 'moveToFinished');
  const second = script(16_000, 'addJobBatch');
  expect(judge([first, second], BOUND, 11_000).over).toHaveLength(2);
  expect(judge([first, second], BOUND, 12_000).over).toEqual([]);
});

test("a script's own command (from the script client) is judged with it, not twice", () => {
  const inner = entry(21_000, 'zrangebyscore', '?:0');
  const outer = script(22_000, 'moveToFinishedBatch');
  // Without the wait, the script counts once; the command inside it is not a second entry.
  expect(judge([inner, outer], BOUND, 0).over).toEqual([outer]);
  // The script's 12 ms over the bound are covered by a 12 ms wait (the inner 11 ms are not added).
  expect(judge([inner, outer], BOUND, 12_000).over).toEqual([]);
});

test('a script is charged its time outside constant-cost commands that stalled', () => {
  const stalledHset = entry(15_000, 'hset', '?:0');
  const outer = script(18_000, 'moveToFinished');
  const verdict = judge([stalledHset, outer], BOUND, 0);
  expect(verdict.over).toEqual([]);
  expect(verdict.stalls).toEqual([{ entry: outer, charged: 3_000 }]);
  const slowLpos = entry(15_000, 'lpos', '?:0');
  const scanning = script(18_000, 'getJobState');
  expect(judge([slowLpos, scanning], BOUND, 0).over).toEqual([scanning]);
});

test('a plain command of constant cost over the bound is a stall; a scan is not', () => {
  const hset = entry(12_000, 'hset', '1.2.3.4:5');
  const lrem = entry(12_000, 'lrem', '1.2.3.4:5');
  const verdict = judge([hset, lrem], BOUND, 0);
  expect(verdict.over).toEqual([lrem]);
  expect(verdict.stalls.map((s) => s.entry)).toEqual([hset]);
});
