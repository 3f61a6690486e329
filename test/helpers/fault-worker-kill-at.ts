/**
 * Test-only instrumentation for the fault worker child (fault-worker.entry.ts): SIGKILLs the
 * process at a chosen point of a job's lifecycle, the Nth time a given Lua script is called.
 * Nothing is mocked: the command goes to the real Redis as usual; the helper only watches
 * ioredis's command sending to decide when to die.
 *
 * Both OxMQ (engine/backend/redis/run-script.ts) and bullmq run their scripts as ioredis custom
 * commands (defineCommand), which send an EVALSHA of the script's SHA-1 through
 * Redis#sendCommand; ioredis itself turns it into an EVAL with the text on a connection that has
 * not run it yet. So: remember the SHA-1 of every defined command whose name is the script's
 * (OxMQ's `<script>:oxmq-<version>`, bullmq's `<script>`), and watch sendCommand for it.
 */
import { createHash } from 'node:crypto';
import { Redis } from 'ioredis';

export interface KillAt {
  /** The scripts, by their names in engine/scripts/registry.generated.ts (or bullmq's). */
  scripts: string[];
  /** Die at this occurrence (1-based) of a matching call that was written to the socket. */
  occurrence: number;
  /**
   * `sent`: right after the command was written to the socket (Redis may or may not run it);
   * `replied`: when its reply arrives, before the caller sees it (Redis ran it, nobody knows).
   */
  when: 'sent' | 'replied';
  /** Only calls with an argument (key or ARGV) containing this text count, e.g. a job id prefix. */
  argIncludes?: string;
}

/** What the process reports just before it kills itself. */
export interface KillReport {
  /** Which of `scripts` was called. */
  script: string;
  when: KillAt['when'];
  /** The script's ARGV. */
  argv: string[];
  /**
   * With `when: 'replied'`: the reply's second element when it is a plain value, the id of the
   * job a fetch (moveToActive, or moveToFinished fetching the next) handed over ("0": none).
   */
  replyJobId?: string;
}

interface ScriptCommand {
  name: string;
  args: unknown[];
  toWritable(socket: unknown): unknown;
  resolve(value: unknown): void;
  reject(error: Error): void;
}

type SendCommand = (this: Redis, command: ScriptCommand, stream?: unknown) => unknown;
type DefineCommand = (
  this: Redis,
  name: string,
  definition: { lua: string; numberOfKeys?: number },
) => void;

const scriptNameMatches = (defined: string, script: string) =>
  defined === script || defined.startsWith(`${script}:`);

/**
 * Patches ioredis's Redis prototype in this process: the `killAt.occurrence`th matching call
 * makes `report` run (synchronously) and the process SIGKILL itself.
 */
export function installKillAt(killAt: KillAt, report: (kill: KillReport) => void): void {
  const targets = new Map<string, { script: string; numberOfKeys: number }>();
  const proto = Redis.prototype as unknown as {
    defineCommand: DefineCommand;
    sendCommand: SendCommand;
  };
  const define = proto.defineCommand;
  proto.defineCommand = function (name, definition) {
    define.call(this, name, definition);
    const script = killAt.scripts.find((candidate) => scriptNameMatches(name, candidate));
    if (script) {
      const sha = createHash('sha1').update(definition.lua).digest('hex');
      targets.set(sha, { script, numberOfKeys: definition.numberOfKeys ?? 0 });
    }
  };

  let seen = 0;
  const die = (kill: KillReport): never => {
    report(kill);
    process.kill(process.pid, 'SIGKILL');
    // SIGKILL cannot be caught; nothing after this line runs.
    throw new Error('unreachable');
  };
  const send = proto.sendCommand;
  proto.sendCommand = function (command, stream) {
    const target = command.name === 'evalsha' ? targets.get(String(command.args[0])) : undefined;
    const argv = target ? command.args.slice(2 + target.numberOfKeys).map(String) : [];
    const counts =
      target !== undefined &&
      (killAt.argIncludes === undefined ||
        command.args.slice(2).some((arg) => String(arg).includes(killAt.argIncludes!)));
    if (!counts) return send.call(this, command, stream);

    // Written now, or queued offline (then sent later through sendCommand again).
    let written = false;
    const toWritable = command.toWritable;
    command.toWritable = function (socket) {
      written = true;
      return toWritable.call(this, socket);
    };
    const result = send.call(this, command, stream);
    command.toWritable = toWritable;
    if (!written) return result;
    seen += 1;
    if (seen !== killAt.occurrence) return result;

    const kill = { script: target.script, when: killAt.when, argv };
    if (killAt.when === 'sent') die(kill);
    const resolve = command.resolve;
    command.resolve = (value) => {
      const second: unknown = Array.isArray(value) ? value[1] : undefined;
      const replyJobId =
        typeof second === 'string' || typeof second === 'number' ? String(second) : undefined;
      die({ ...kill, replyJobId });
      resolve(value);
    };
    command.reject = () => die(kill);
    return result;
  };
}
