/**
 * A real Prometheus (Debian's /usr/bin/prometheus) of a test's own: a temporary config and
 * storage directory, a free port on 127.0.0.1, started and stopped by the test. Used to prove
 * that dashboard expressions are valid PromQL and, with scrape configs, that they return data
 * for a running system.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '../setup/redis-server';

export const PROMETHEUS_BINARY = '/usr/bin/prometheus';
export const PROMTOOL_BINARY = '/usr/bin/promtool';

function requireBinary(binary: string): void {
  if (!existsSync(binary)) {
    throw new Error(
      `${binary} not found: these tests need Debian's Prometheus ` +
        '(apt-get install -y prometheus; .ci/run installs it).',
    );
  }
}

/** Runs Debian's promtool (e.g. `check config <file>`); rejects with its output on failure. */
export async function promtool(args: string[]): Promise<{ stdout: string; stderr: string }> {
  requireBinary(PROMTOOL_BINARY);
  return promisify(execFile)(PROMTOOL_BINARY, args);
}

/** One entry of Prometheus's `scrape_configs`, as Prometheus's configuration names it. */
export interface ScrapeConfig {
  job_name: string;
  metrics_path?: string;
  scheme?: 'http' | 'https';
  scrape_interval?: string;
  authorization?: { type?: string; credentials?: string; credentials_file?: string };
  static_configs: { targets: string[]; labels?: Record<string, string> }[];
  /** Any other scrape option, passed through as written. */
  [option: string]: unknown;
}

export interface PrometheusOptions {
  scrapeConfigs?: ScrapeConfig[];
  /** The global scrape interval (default 1s, so that tests see data within seconds). */
  scrapeInterval?: string;
}

export interface InstantSample {
  metric: Record<string, string>;
  value: [number, string];
}

export type QueryData =
  | { resultType: 'vector'; result: InstantSample[] }
  | {
      resultType: 'matrix';
      result: { metric: Record<string, string>; values: [number, string][] }[];
    }
  | { resultType: 'scalar' | 'string'; result: [number, string] };

export interface RunningPrometheus {
  /** e.g. http://127.0.0.1:40123 */
  readonly url: string;
  /** An instant query at the current time; rejects with Prometheus's error for a bad query. */
  query(expr: string): Promise<QueryData>;
  /** Polls `expr` until it returns at least one sample; rejects after `timeoutMs`. */
  waitForSeries(expr: string, timeoutMs?: number): Promise<InstantSample[]>;
  /** SIGTERM, waits for the exit, removes the temporary directory. */
  stop(): Promise<void>;
}

const READY_TIMEOUT_MS = 30_000;
const STOP_TIMEOUT_MS = 10_000;

export async function startPrometheus(options: PrometheusOptions = {}): Promise<RunningPrometheus> {
  requireBinary(PROMETHEUS_BINARY);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'oxmq-prometheus-'));
  // Prometheus reads its config as YAML, and JSON is YAML: no YAML writer needed.
  const configFile = path.join(dir, 'prometheus.yml');
  writeFileSync(
    configFile,
    JSON.stringify({
      global: { scrape_interval: options.scrapeInterval ?? '1s' },
      scrape_configs: options.scrapeConfigs ?? [],
    }),
  );
  try {
    // The free port is only free until Prometheus binds it: retry if another process won.
    for (let attempt = 1; ; attempt++) {
      const port = await freePort();
      const started = await launch(configFile, path.join(dir, 'data'), port);
      if ('child' in started) return running(started.child, `http://127.0.0.1:${port}`, dir);
      if (!/address already in use/.test(started.output) || attempt >= 3) {
        throw new Error(`prometheus did not start:\n${started.output}`);
      }
    }
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}

async function launch(
  configFile: string,
  storage: string,
  port: number,
): Promise<{ child: ChildProcess } | { output: string }> {
  const child = spawn(
    PROMETHEUS_BINARY,
    [
      `--config.file=${configFile}`,
      `--storage.tsdb.path=${storage}`,
      `--web.listen-address=127.0.0.1:${port}`,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  const collect = (chunk: Buffer): void => {
    // Enough to explain a failed start; Prometheus logs little after that.
    if (output.length < 64_000) output += chunk.toString();
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  let exited = false;
  const exit = new Promise<void>((resolve) => {
    child.once('exit', () => {
      exited = true;
      resolve();
    });
    child.once('error', (error) => {
      output += `\n${error.message}`;
      exited = true;
      resolve();
    });
  });

  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (!exited && Date.now() < deadline) {
    try {
      // 503 while Prometheus replays its (empty) TSDB and loads the config, 200 once ready.
      if ((await fetch(`http://127.0.0.1:${port}/-/ready`)).status === 200) return { child };
    } catch {
      // Not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  if (!exited) {
    child.kill('SIGKILL');
    await exit;
    return { output: `not ready after ${READY_TIMEOUT_MS} ms\n${output}` };
  }
  return { output };
}

function running(child: ChildProcess, url: string, dir: string): RunningPrometheus {
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });

  async function query(expr: string): Promise<QueryData> {
    const response = await fetch(`${url}/api/v1/query?${new URLSearchParams({ query: expr })}`);
    const body = (await response.json()) as {
      status: string;
      data?: QueryData;
      errorType?: string;
      error?: string;
    };
    if (body.status !== 'success' || !body.data) {
      throw new Error(`${body.errorType ?? response.status}: ${body.error ?? ''} (query: ${expr})`);
    }
    return body.data;
  }

  async function waitForSeries(expr: string, timeoutMs = 30_000): Promise<InstantSample[]> {
    const deadline = Date.now() + timeoutMs;
    let last: QueryData | undefined;
    while (Date.now() < deadline) {
      last = await query(expr);
      if (last.resultType === 'vector' && last.result.length > 0) return last.result;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    throw new Error(
      `no series for ${expr} after ${timeoutMs} ms (last result: ${JSON.stringify(last)})`,
    );
  }

  async function stop(): Promise<void> {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
      await exited;
      clearTimeout(timer);
    }
    rmSync(dir, { recursive: true, force: true });
  }

  return { url, query, waitForSeries, stop };
}
