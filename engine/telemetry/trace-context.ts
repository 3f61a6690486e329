import { randomBytes } from 'node:crypto';
import { ValidationError } from '../errors';

// version "00": 2 hex version, 32 hex trace id, 16 hex span id, 2 hex flags (W3C Trace Context).
// Later versions may append "-<more>" after the flags; those parts are ignored (W3C §3.2.4).
const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;
const ALL_ZERO = /^0+$/;
const MAX_TRACESTATE_ENTRIES = 32;
const TRACESTATE_KEY =
  /^(?:[a-z][a-z0-9_\-*/]{0,255}|[a-z0-9][a-z0-9_\-*/]{0,240}@[a-z][a-z0-9_\-*/]{0,13})$/;
// Printable ASCII except "," and "=", no trailing space, at most 256 chars.
const TRACESTATE_VALUE = /^[\x20-\x2b\x2d-\x3c\x3e-\x7e]{0,255}[\x21-\x2b\x2d-\x3c\x3e-\x7e]$/;

/** A parsed, validated W3C trace context, carried by a job from its producer to its processor. */
export class TraceContext {
  private constructor(
    readonly version: string,
    readonly traceId: string,
    readonly spanId: string,
    readonly traceFlags: string,
    readonly tracestate: string | undefined,
  ) {}

  /**
   * Parses a `traceparent` (and optional `tracestate`); throws ValidationError when malformed.
   * Unlike a passive propagator (which W3C tells to drop a bad tracestate and keep going), this
   * validates what a producer hands us, so a bad tracestate is refused with the job rather than
   * silently lost.
   */
  static of(traceparent: string, tracestate?: string): TraceContext {
    if (typeof traceparent !== 'string') {
      throw new ValidationError('traceparent must be a string');
    }
    const match = TRACEPARENT.exec(traceparent.trim());
    if (!match) {
      throw new ValidationError(
        `Malformed traceparent "${traceparent}": expected 00-<32 hex>-<16 hex>-<2 hex>`,
      );
    }
    const [, version, traceId, spanId, flags] = match as unknown as [
      string,
      string,
      string,
      string,
      string,
    ];
    if (version === 'ff') throw new ValidationError('traceparent version ff is invalid');
    if (version === '00' && traceparent.trim().length !== 55) {
      throw new ValidationError('traceparent version 00 must be exactly 55 characters');
    }
    if (ALL_ZERO.test(traceId))
      throw new ValidationError('traceparent trace id must not be all zeros');
    if (ALL_ZERO.test(spanId))
      throw new ValidationError('traceparent span id must not be all zeros');
    if (tracestate !== undefined) validateTracestate(tracestate);
    return new TraceContext(version, traceId, spanId, flags, tracestate);
  }

  /** A fresh root context (random ids, sampled). */
  static create(tracestate?: string): TraceContext {
    return TraceContext.of(`00-${randomHex(16)}-${randomHex(8)}-01`, tracestate);
  }

  get sampled(): boolean {
    return (parseInt(this.traceFlags, 16) & 1) === 1;
  }

  /**
   * Same trace, new span id: what a processor's span (or a child job) should carry. Emitted as
   * version 00 with only the sampled bit kept: reserved flag bits must be zero when we write.
   */
  createChildSpan(): TraceContext {
    const flags = (parseInt(this.traceFlags, 16) & 0x01).toString(16).padStart(2, '0');
    return new TraceContext('00', this.traceId, randomHex(8), flags, this.tracestate);
  }

  get traceparent(): string {
    return `${this.version}-${this.traceId}-${this.spanId}-${this.traceFlags}`;
  }

  toString(): string {
    return this.traceparent;
  }
}

function randomHex(bytes: number): string {
  let hex = randomBytes(bytes).toString('hex');
  while (ALL_ZERO.test(hex)) hex = randomBytes(bytes).toString('hex');
  return hex;
}

function validateTracestate(tracestate: string): void {
  if (typeof tracestate !== 'string') throw new ValidationError('tracestate must be a string');
  const members = tracestate
    .split(',')
    .map((member) => member.trim())
    .filter(Boolean);
  if (members.length > MAX_TRACESTATE_ENTRIES) {
    throw new ValidationError(`tracestate has more than ${MAX_TRACESTATE_ENTRIES} entries`);
  }
  const seen = new Set<string>();
  for (const member of members) {
    const eq = member.indexOf('=');
    const key = member.slice(0, eq);
    const value = member.slice(eq + 1);
    if (eq <= 0 || !TRACESTATE_KEY.test(key) || !TRACESTATE_VALUE.test(value)) {
      throw new ValidationError(`Malformed tracestate entry "${member}"`);
    }
    if (seen.has(key)) throw new ValidationError(`tracestate repeats the key "${key}"`);
    seen.add(key);
  }
}
