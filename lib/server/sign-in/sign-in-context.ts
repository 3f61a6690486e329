/**
 * What the auth route knows about one sign-in request, handed to next-auth's `authorize`
 * through AsyncLocalStorage: the throttle runs inside `authorize`, on the exact username
 * next-auth checks, but needs the client's address and device cookie, which only the route
 * sees; and the route needs to know afterwards whether `authorize` refused the attempt (to
 * answer 429 with Retry-After instead of next-auth's 401) or signed someone in (to set the
 * device cookie).
 */
import { AsyncLocalStorage } from 'node:async_hooks';

export type SignInRefusalKind = 'TooManyAttempts' | 'SignInBusy';

export interface SignInRefusal {
  kind: SignInRefusalKind;
  retryAfterSeconds: number;
}

export interface SignInContext {
  /** The client's address when trusted proxies say it (client-address.ts), else null. */
  readonly address: string | null;
  /** The username key a valid device cookie of this browser vouches for (device-cookie.ts). */
  readonly deviceUser: string | null;
  /** That cookie's id: trusted attempts are throttled per device, not per username. */
  readonly deviceId: string | null;
  refusal?: SignInRefusal;
  /** Set when `authorize` accepted the credentials: the username key signed in. */
  signedIn?: string;
}

const storage = new AsyncLocalStorage<SignInContext>();

export function runInSignInContext<T>(context: SignInContext, run: () => Promise<T>): Promise<T> {
  return storage.run(context, run);
}

/** The context of the sign-in in progress; undefined outside the auth route. */
export function currentSignInContext(): SignInContext | undefined {
  return storage.getStore();
}

/** Thrown inside `authorize` to refuse an attempt without checking its password. */
export class SignInRefusedError extends Error {
  override readonly name = 'SignInRefusedError';
  constructor(readonly kind: SignInRefusalKind | 'NoContext') {
    super(kind);
  }
}
