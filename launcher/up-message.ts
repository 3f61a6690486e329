/**
 * What the launcher prints once everything answers: where the console is, how to sign in and
 * what else runs. A generated admin password is shown by the start that generated it only;
 * later starts name the file that keeps it, so the password is not copied into every log the
 * launcher's output is kept in.
 */
import { listensBeyondLoopback } from './console-address';
import type { GeneratedAdmin } from './console-credentials';

export interface UpMessageInput {
  consoleUrl: string;
  /** The address the console listens on (HOST). */
  host: string;
  generatedAdmin?: GeneratedAdmin;
  workerHealthUrl?: string;
  demo: boolean;
}

export function upMessage(input: UpMessageInput): string {
  const { generatedAdmin: admin } = input;
  const reach = listensBeyondLoopback(input.host)
    ? `listening on ${input.host}`
    : `listening on ${input.host} only; set HOST=0.0.0.0 to accept other machines`;
  const lines = [`OxMQ is up: console ${input.consoleUrl} (${reach})`];
  if (admin?.firstTime) {
    lines.push(
      `sign in as "${admin.username}" with password "${admin.password}" (generated now, kept in ` +
        `${admin.file}; set OXMQ_ADMIN_USER and OXMQ_ADMIN_PASSWORD to choose your own)`,
    );
  } else if (admin) {
    lines.push(
      `sign in as "${admin.username}" with the generated password kept in ${admin.file} ` +
        '(set OXMQ_ADMIN_USER and OXMQ_ADMIN_PASSWORD to choose your own)',
    );
  }
  if (input.workerHealthUrl) lines.push(`worker runner health: ${input.workerHealthUrl}/health`);
  if (input.demo) lines.push('demo running: see docs/demo.md for the tour');
  lines.push('stop with Ctrl-C (running jobs finish first)');
  return lines.join('\n');
}
