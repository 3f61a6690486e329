/** The shape of an entry of the console's API route list (index.ts). */
import type { ActionName, ReadName } from '../permissions';

/** Every method a Next route file can export, so one the list does not know cannot slip by. */
export const HTTP_METHODS = ['GET', 'HEAD', 'OPTIONS', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
type HttpMethod = (typeof HTTP_METHODS)[number];

/**
 * Who may call a route. A read above `viewer`, or a mutation, names its entry in
 * lib/permissions.ts rather than a role, so the API table and the role table cannot disagree.
 */
type ApiAccess =
  /** Outside withRoute: next-auth's endpoints, the health check, the bearer-token scrape. */
  | 'no session'
  /** A read any signed-in user may make. */
  | 'viewer'
  /** A read that needs more, as READ_PERMISSIONS says. */
  | { read: ReadName }
  /** A mutation: audited under this action, with its role in ACTION_PERMISSIONS. */
  | { action: ActionName };

export interface ApiRoute {
  method: HttpMethod;
  /** From the route file's folder: `[id]` is `:id`, a catch-all `[...x]` is `*`. */
  path: string;
  access: ApiAccess;
  /** One line for the docs' table: what it does, its query or body, its answer. */
  summary: string;
}
