/**
 * Signs a user out everywhere: every session they hold now stops working at once, on every
 * console process (lib/server/session-revocation.ts). Admin only, audited; the user may sign
 * in again. For a copied cookie, a lost laptop, or before removing someone from the users file.
 */
import { z } from 'zod';
import type { SignOutEverywhereResponse } from '@/lib/api-types';
import { ApiProblem, withRoute } from '@/lib/server/api';
import { sessionRevocations } from '@/lib/server/oxmq';
import { configuredUsers } from '@/lib/server/users';

export const dynamic = 'force-dynamic';

const params = z.object({ username: z.string().min(1).max(256) });

export const POST = withRoute(
  {
    mutation: { action: 'user.sign-out-everywhere', target: (p) => `user:${p.username ?? '?'}` },
    params,
  },
  async ({ params }): Promise<SignOutEverywhereResponse> => {
    if (!configuredUsers().some((user) => user.username === params.username)) {
      throw new ApiProblem(404, 'NOT_FOUND', 'No such user');
    }
    await sessionRevocations().revokeAll(params.username);
    return { ok: true };
  },
);
