/**
 * The launcher's own lines, in the same `label | text` column as the children's relayed output
 * (child-process.ts), so one terminal reads as one log. The launcher talks to a person starting
 * OxMQ, so its lines are plain text; the runner and the demo keep their JSON lines.
 */
const LABEL = 'oxmq'.padEnd(7);

export interface LauncherLog {
  info(message: string): void;
  error(message: string): void;
}

export function createLauncherLog(quiet = false): LauncherLog {
  const write = (stream: NodeJS.WriteStream, message: string) => {
    for (const line of message.split('\n')) stream.write(`${LABEL} | ${line}\n`);
  };
  return {
    info: (message) => {
      if (!quiet) write(process.stdout, message);
    },
    error: (message) => write(process.stderr, message),
  };
}
