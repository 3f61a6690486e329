/**
 * The users listed in OXMQ_USERS (inline JSON, or the path of a JSON file), as
 * `[{ "username", "passwordHash" (bcrypt), "role" }]`. A file is re-read when it changes
 * (checked by its size, mtime and inode on each use: one stat), so removing or downgrading a
 * user takes effect on the next request without a restart. A file that becomes unreadable or
 * invalid locks its users out (fails closed) and is reported once per change.
 */
import 'server-only';
import { readFileSync, statSync } from 'node:fs';
import { z } from 'zod';
import { ROLES, type Role } from '../roles';

export interface ConfiguredUser {
  username: string;
  passwordHash: string;
  role: Role;
}

const usersSchema = z.array(
  z.object({
    username: z.string().trim().min(1),
    passwordHash: z.string().regex(/^\$2[aby]\$\d{2}\$.{53}$/, 'must be a bcrypt hash'),
    role: z.enum(ROLES),
  }),
);

function parseUsers(text: string, source: string): ConfiguredUser[] {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new Error(`${source} is not valid JSON: ${String(error)}`);
  }
  const parsed = usersSchema.safeParse(json);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    throw new Error(`${source} is invalid: ${problems.join('; ')}`);
  }
  return parsed.data;
}

export class UsersSource {
  private version: string | undefined;
  private users: ConfiguredUser[] = [];

  constructor(private readonly setting: string) {}

  /** The users as configured now. */
  current(): ConfiguredUser[] {
    if (this.setting.startsWith('[')) {
      if (this.version === undefined) {
        this.users = parseUsers(this.setting, 'OXMQ_USERS');
        this.version = 'inline';
      }
      return this.users;
    }
    let version: string;
    try {
      const stat = statSync(this.setting);
      version = `${stat.ino}:${stat.size}:${stat.mtimeMs}`;
    } catch (error) {
      version = `missing:${String(error)}`;
    }
    if (version !== this.version) {
      this.version = version;
      try {
        this.users = parseUsers(readFileSync(this.setting, 'utf8'), `OXMQ_USERS (${this.setting})`);
      } catch (error) {
        this.users = [];
        console.error(`OxMQ console: no users from OXMQ_USERS until it is fixed: ${String(error)}`);
      }
    }
    return this.users;
  }
}
