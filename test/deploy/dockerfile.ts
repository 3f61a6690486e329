/**
 * deploy/Dockerfile as the tests read it: its instructions (continuation lines joined, comments
 * dropped) grouped by build stage. Only the instructions the file uses are interpreted; the
 * tests look at FROM, COPY, ENV, USER, WORKDIR, EXPOSE, HEALTHCHECK and CMD.
 */
import { readFileSync } from 'node:fs';

export interface Instruction {
  readonly keyword: string;
  /** The rest of the line, continuations joined with a space. */
  readonly args: string;
}

export interface Stage {
  /** What it starts from: an image reference or an earlier stage's name. */
  readonly from: string;
  readonly name: string;
  readonly instructions: Instruction[];
}

export function readDockerfile(file: string): Stage[] {
  const logical: string[] = [];
  let pending = '';
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    // Comments, also between continuation lines (Docker drops those too).
    if (/^\s*#/.test(line)) continue;
    const continued = /\\\s*$/.test(line);
    pending += (pending ? ' ' : '') + line.replace(/\\\s*$/, '').trim();
    if (!continued) {
      if (pending.trim() !== '') logical.push(pending.trim());
      pending = '';
    }
  }
  const stages: Stage[] = [];
  for (const line of logical) {
    const [keyword = '', ...rest] = line.split(/\s+/);
    const args = rest.join(' ');
    if (keyword.toUpperCase() === 'FROM') {
      const match = /^(\S+)(?:\s+AS\s+(\S+))?$/i.exec(args);
      if (!match?.[1]) throw new Error(`cannot read: ${line}`);
      stages.push({ from: match[1], name: match[2] ?? `#${stages.length}`, instructions: [] });
      continue;
    }
    const stage = stages.at(-1);
    if (!stage) throw new Error(`instruction before FROM: ${line}`);
    stage.instructions.push({ keyword: keyword.toUpperCase(), args });
  }
  return stages;
}

/** A stage and the stages it is built on, the base first. */
export function stageChain(stages: readonly Stage[], name: string): Stage[] {
  const stage = stages.find((s) => s.name === name);
  if (!stage) throw new Error(`no stage ${name}`);
  const parent = stages.find((s) => s.name === stage.from);
  return parent ? [...stageChain(stages, parent.name), stage] : [stage];
}

/** `COPY [--from=x] [--chown=y] src... dest` split into its options, sources and destination. */
export function copyOf(args: string): { from?: string; sources: string[]; dest: string } {
  const words = args.split(/\s+/);
  const options = words.filter((word) => word.startsWith('--'));
  const paths = words.filter((word) => !word.startsWith('--'));
  const from = options.find((o) => o.startsWith('--from='))?.slice('--from='.length);
  const dest = paths.pop() ?? '';
  return { ...(from ? { from } : {}), sources: paths, dest };
}

/** `ENV A=1 B=2` (the only form the file uses) as pairs. */
export function envOf(args: string): [string, string][] {
  return args.split(/\s+/).map((pair) => {
    const equals = pair.indexOf('=');
    if (equals <= 0) throw new Error(`ENV without =: ${args}`);
    return [pair.slice(0, equals), pair.slice(equals + 1)];
  });
}
