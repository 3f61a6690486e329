/** The trace id the console links a job to (engine/telemetry/trace-id.ts). */
import { describe, expect, it } from 'vitest';
import { traceIdOf } from 'oxmq/internals';

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT = `00-${TRACE}-00f067aa0ba902b7-01`;

describe('traceIdOf', () => {
  it('reads the traceparent field, else the traceparent in bullmq’s tm metadata', () => {
    expect(traceIdOf(PARENT)).toBe(TRACE);
    expect(traceIdOf(undefined, JSON.stringify({ traceparent: PARENT }))).toBe(TRACE);
    const other = '11111111111111111111111111111111';
    expect(
      traceIdOf(`00-${other}-00f067aa0ba902b7-01`, JSON.stringify({ traceparent: PARENT })),
    ).toBe(other);
  });

  it('answers no trace for what another writer got wrong', () => {
    expect(traceIdOf('garbage')).toBeUndefined();
    expect(traceIdOf(undefined, '{not json')).toBeUndefined();
    expect(traceIdOf(undefined, JSON.stringify({ traceparent: 42 }))).toBeUndefined();
    expect(traceIdOf(undefined, 'null')).toBeUndefined();
  });
});
