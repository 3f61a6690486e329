/**
 * TraceContext against W3C Trace Context Level 1 (traceparent / tracestate header formats).
 */
import { describe, expect, it } from 'vitest';
import { ValidationError } from 'oxmq/internals';
import { TraceContext } from 'oxmq/internals';

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const SPAN_ID = '00f067aa0ba902b7';
const VALID = `00-${TRACE_ID}-${SPAN_ID}-01`;

function rejects(traceparent: string, tracestate?: string): void {
  expect(() => TraceContext.of(traceparent, tracestate)).toThrow(ValidationError);
}

describe('TraceContext.of: valid traceparent', () => {
  it('parses the four fields of a version 00 header', () => {
    const ctx = TraceContext.of(VALID);
    expect(ctx.version).toBe('00');
    expect(ctx.traceId).toBe(TRACE_ID);
    expect(ctx.spanId).toBe(SPAN_ID);
    expect(ctx.traceFlags).toBe('01');
    expect(ctx.tracestate).toBeUndefined();
    expect(ctx.traceparent).toBe(VALID);
    expect(String(ctx)).toBe(VALID);
  });

  it('reads sampled from the least significant flag bit only', () => {
    const sampled = (flags: string) =>
      TraceContext.of(`00-${TRACE_ID}-${SPAN_ID}-${flags}`).sampled;
    expect(sampled('01')).toBe(true);
    expect(sampled('00')).toBe(false);
    expect(sampled('09')).toBe(true); // 0000_1001: masked, not compared to 1
    expect(sampled('ff')).toBe(true);
    expect(sampled('fe')).toBe(false);
    expect(sampled('02')).toBe(false);
  });

  it('accepts ids with leading zeros (only all-zero ids are invalid)', () => {
    const ctx = TraceContext.of(`00-${'0'.repeat(31)}1-${'0'.repeat(15)}1-00`);
    expect(ctx.traceId).toBe(`${'0'.repeat(31)}1`);
    expect(ctx.spanId).toBe(`${'0'.repeat(15)}1`);
  });

  it('accepts a higher version of exactly 55 characters and keeps it for pass-through', () => {
    const ctx = TraceContext.of(`cc-${TRACE_ID}-${SPAN_ID}-01`);
    expect(ctx.version).toBe('cc');
    expect(ctx.traceparent).toBe(`cc-${TRACE_ID}-${SPAN_ID}-01`);
  });

  it('keeps a valid tracestate as given', () => {
    const tracestate = 'rojo=00f067aa0ba902b7, congo=t61rcWkgMzE';
    expect(TraceContext.of(VALID, tracestate).tracestate).toBe(tracestate);
  });
});

describe('TraceContext.of: rejected traceparent', () => {
  it('rejects wrong field lengths', () => {
    rejects(`00-${TRACE_ID.slice(1)}-${SPAN_ID}-01`); // 31-char trace id
    rejects(`00-${TRACE_ID}a-${SPAN_ID}-01`); // 33-char trace id
    rejects(`00-${TRACE_ID}-${SPAN_ID.slice(1)}-01`); // 15-char span id
    rejects(`00-${TRACE_ID}-${SPAN_ID}a-01`); // 17-char span id
    rejects(`00-${TRACE_ID}-${SPAN_ID}-1`); // 1-char flags
    rejects(`00-${TRACE_ID}-${SPAN_ID}-011`); // 3-char flags
    rejects(`0-${TRACE_ID}-${SPAN_ID}-01`); // 1-char version
    rejects(`000-${TRACE_ID}-${SPAN_ID}-01`); // 3-char version
  });

  it('rejects version 00 with anything after the flags', () => {
    rejects(`${VALID}-`);
    rejects(`${VALID}-extra`);
  });

  it('rejects uppercase hex in any field (HEXDIGLC)', () => {
    rejects(`00-${TRACE_ID.toUpperCase()}-${SPAN_ID}-01`);
    rejects(`00-${TRACE_ID}-${SPAN_ID.toUpperCase()}-01`);
    rejects(`00-${TRACE_ID}-${SPAN_ID}-0A`);
    rejects(`0A-${TRACE_ID}-${SPAN_ID}-01`);
  });

  it('rejects non-hex characters and wrong delimiters', () => {
    rejects(`00-${TRACE_ID.slice(0, 31)}g-${SPAN_ID}-01`);
    rejects(`00-${TRACE_ID}-${SPAN_ID.slice(0, 15)}z-01`);
    rejects(`00_${TRACE_ID}_${SPAN_ID}_01`);
    rejects(`00-${TRACE_ID}-${SPAN_ID}-0x`);
    rejects('');
  });

  it('rejects version ff', () => {
    rejects(`ff-${TRACE_ID}-${SPAN_ID}-01`);
  });

  it('rejects an all-zero trace id or span id', () => {
    rejects(`00-${'0'.repeat(32)}-${SPAN_ID}-01`);
    rejects(`00-${TRACE_ID}-${'0'.repeat(16)}-01`);
  });

  it('rejects a non-string', () => {
    expect(() => TraceContext.of(42 as unknown as string)).toThrow(ValidationError);
  });
});

describe('TraceContext.of: tracestate', () => {
  it('accepts simple and multi-tenant keys at their maximum lengths', () => {
    const simple = `a${'b'.repeat(255)}`; // 256 chars
    const tenant = `${'1'.repeat(241)}@${'s'.repeat(14)}`; // 241 + @ + 14
    expect(() => TraceContext.of(VALID, `${simple}=v`)).not.toThrow();
    expect(() => TraceContext.of(VALID, `${tenant}=v`)).not.toThrow();
    expect(() => TraceContext.of(VALID, 'a_-*/9=v,x0@y_-*/=v')).not.toThrow();
  });

  it('accepts values at their maximum length, with inner and leading spaces', () => {
    expect(() => TraceContext.of(VALID, `k=${'v'.repeat(256)}`)).not.toThrow();
    expect(() => TraceContext.of(VALID, 'k= leading space and inner ones')).not.toThrow();
    expect(() => TraceContext.of(VALID, 'k=!"#$%&\'()*+-./:;<>?@[\\]^_`{|}~')).not.toThrow();
  });

  it('accepts empty and whitespace-only members, and an empty header', () => {
    expect(() => TraceContext.of(VALID, '')).not.toThrow();
    expect(() => TraceContext.of(VALID, 'a=1,, ,\tb=2')).not.toThrow();
    expect(() => TraceContext.of(VALID, ' a=1 , b=2 ')).not.toThrow();
  });

  it('accepts 32 members and rejects 33', () => {
    const members = (n: number) => Array.from({ length: n }, (_, i) => `k${i}=v`).join(',');
    expect(() => TraceContext.of(VALID, members(32))).not.toThrow();
    rejects(VALID, members(33));
  });

  it('rejects bad keys', () => {
    rejects(VALID, 'Upper=v'); // uppercase
    rejects(VALID, '1abc=v'); // simple key must start with a-z
    rejects(VALID, '_k=v');
    rejects(VALID, 'k.x=v'); // "." not allowed
    rejects(VALID, `a${'b'.repeat(256)}=v`); // 257 chars
    rejects(VALID, `${'1'.repeat(242)}@s=v`); // tenant id too long
    rejects(VALID, `t@${'s'.repeat(15)}=v`); // system id too long
    rejects(VALID, 't@1sys=v'); // system id must start with a-z
    rejects(VALID, 'a@b@c=v');
    rejects(VALID, '=v'); // empty key
  });

  it('rejects bad values', () => {
    rejects(VALID, 'k='); // empty value
    rejects(VALID, 'k=a=b'); // "=" inside the value
    rejects(VALID, `k=${'v'.repeat(257)}`); // 257 chars
    rejects(VALID, 'k=tab\tinside');
    rejects(VALID, 'k=caf\u00e9'); // non-ASCII
    rejects(VALID, 'novalue'); // no "="
  });

  it('rejects a bad entry among good ones', () => {
    rejects(VALID, 'good=1,Bad=2,other=3');
  });

  // Level 1 §3.3.1.5 (combined header): "Only one entry per key is allowed".
  it('rejects duplicate keys', () => {
    rejects(VALID, 'congo=1,rojo=2,congo=3');
  });
});

describe('TraceContext.create and createChildSpan', () => {
  it('creates a sampled root context with random, non-zero ids', () => {
    const a = TraceContext.create();
    const b = TraceContext.create('vendor=1');
    expect(a.traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    expect(a.sampled).toBe(true);
    expect(a.traceId).not.toBe(b.traceId);
    expect(b.tracestate).toBe('vendor=1');
    // The output parses back: it is a valid header.
    expect(TraceContext.of(a.traceparent).traceparent).toBe(a.traceparent);
  });

  it('keeps trace id, flags and tracestate and changes the span id', () => {
    const parent = TraceContext.of(`00-${TRACE_ID}-${SPAN_ID}-00`, 'congo=t61rcWkgMzE');
    const child = parent.createChildSpan();
    expect(child.traceId).toBe(TRACE_ID);
    expect(child.spanId).toMatch(/^[0-9a-f]{16}$/);
    expect(child.spanId).not.toBe(SPAN_ID);
    expect(child.spanId).not.toBe('0'.repeat(16));
    expect(child.traceFlags).toBe('00');
    expect(child.sampled).toBe(false);
    expect(child.tracestate).toBe('congo=t61rcWkgMzE');
    expect(TraceContext.of(child.traceparent, child.tracestate).traceId).toBe(TRACE_ID);
  });

  it('gives every child its own span id', () => {
    const parent = TraceContext.of(VALID);
    const spans = new Set(Array.from({ length: 50 }, () => parent.createChildSpan().spanId));
    expect(spans.size).toBe(50);
  });

  it('downgrades a higher version to 00 in the child', () => {
    const child = TraceContext.of(`cc-${TRACE_ID}-${SPAN_ID}-01`).createChildSpan();
    expect(child.version).toBe('00');
    expect(child.traceparent).toMatch(new RegExp(`^00-${TRACE_ID}-[0-9a-f]{16}-01$`));
  });

  // Level 1 §3.2.2.5.2 "Other Flags": reserved bits are not defined; "Vendors MUST set those to
  // zero". A child span is a new header we write, so only the sampled bit may carry over.
  it('clears the reserved flag bits in a child span', () => {
    const child = TraceContext.of(`00-${TRACE_ID}-${SPAN_ID}-ff`).createChildSpan();
    expect(child.traceFlags).toBe('01');
  });
});

// Level 1 §3.2.4 (versioning): for a higher version a vendor SHOULD parse trace-id, parent-id and
// flags when the flags are followed by the end of the string or by a dash, ignoring what follows.
describe('TraceContext.of: future versions with extra fields', () => {
  it('parses a higher version followed by unknown fields', () => {
    const ctx = TraceContext.of(`cc-${TRACE_ID}-${SPAN_ID}-01-what-the-future-will-be-like`);
    expect(ctx.traceId).toBe(TRACE_ID);
    expect(ctx.createChildSpan().traceparent).toMatch(/^00-/);
  });

  it('still rejects a higher version whose flags are followed by something other than a dash', () => {
    rejects(`cc-${TRACE_ID}-${SPAN_ID}-01.what`);
  });
});
