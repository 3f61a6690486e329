/** The typed error of the config loader: one exception that names every problem at once. */

/** Where a value came from: `environment`, the config file's path, or `not set`. */
export type ConfigSource = string;

export interface ConfigProblem {
  /** The setting's name (an environment variable name), or undefined for the file as a whole. */
  readonly setting?: string;
  readonly source: ConfigSource;
  /** What is wrong or what is expected, e.g. `must be a port number from 0 to 65535`. */
  readonly message: string;
}

export function formatProblem(problem: ConfigProblem): string {
  return `${problem.setting ?? 'config file'} (${problem.source}): ${problem.message}`;
}

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  readonly code = 'INVALID_CONFIG';

  constructor(readonly problems: readonly ConfigProblem[]) {
    const count = problems.length === 1 ? '1 problem' : `${problems.length} problems`;
    super(
      `Invalid configuration (${count}):\n${problems.map((p) => `  - ${formatProblem(p)}`).join('\n')}`,
    );
  }
}
