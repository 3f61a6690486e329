/** Commands collected for one pipelined round trip (flow and console reads). */
import type { RedisClient } from './connection';
import { UnexpectedReplyError } from '../../errors';

type Command = [string, ...(string | number)[]];

/** Commands collected for one pipelined round trip; add() returns the index of the reply. */
export class CommandBatch {
  private readonly commands: Command[] = [];

  add(...command: Command): number {
    return this.commands.push(command) - 1;
  }

  get size(): number {
    return this.commands.length;
  }

  async run(client: RedisClient): Promise<unknown[]> {
    if (this.commands.length === 0) return [];
    const results = await client.pipeline(this.commands).exec();
    if (!results) throw new UnexpectedReplyError('pipeline returned no replies');
    return results.map(([error, reply]) => {
      if (error) throw error;
      return reply;
    });
  }
}
