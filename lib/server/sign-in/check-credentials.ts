/**
 * The body of next-auth's `authorize`: the throttle and the bcrypt gate applied to exactly the
 * username and password next-auth hands over, inside the request context the auth route set up
 * (sign-in-context.ts). Outside that context it refuses: every credentials check must pass the
 * route's guard, so a path that reached `authorize` another way fails closed.
 */
import 'server-only';
import { verifyCredentials, type SignedInUser } from '../users';
import { currentSignInContext, SignInRefusedError } from './sign-in-context';
import { SignInBusyError } from './sign-in-gate';
import { signInGuard, type SignInAttempt } from './sign-in-guard';
import { usernameKey } from './username-key';

export async function checkCredentials(
  username: string,
  password: string,
): Promise<SignedInUser | null> {
  const context = currentSignInContext();
  if (!context) throw new SignInRefusedError('NoContext');
  const userKey = usernameKey(username);
  const attempt: SignInAttempt = {
    userKey,
    address: context.address,
    device: context.deviceUser === userKey ? context.deviceId : null,
  };
  const guard = signInGuard();
  const waitSeconds = guard.retryAfterSeconds(attempt);
  if (waitSeconds > 0) {
    context.refusal = { kind: 'TooManyAttempts', retryAfterSeconds: waitSeconds };
    throw new SignInRefusedError('TooManyAttempts');
  }
  let user: SignedInUser | null;
  try {
    user = await guard.gateFor(attempt).run(() => verifyCredentials(username, password));
  } catch (error) {
    if (!(error instanceof SignInBusyError)) throw error;
    context.refusal = { kind: 'SignInBusy', retryAfterSeconds: 1 };
    throw new SignInRefusedError('SignInBusy');
  }
  if (user) {
    guard.recordSuccess(attempt);
    context.signedIn = userKey;
  } else {
    guard.recordFailure(attempt);
  }
  return user;
}
