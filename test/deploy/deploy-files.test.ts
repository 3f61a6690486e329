/**
 * deploy/ checked against the repository it deploys: the compose file, the Dockerfile, the
 * Prometheus configuration and the Grafana provisioning refer only to files, settings, routes
 * and ports that exist, and every image is pinned. Nothing here builds or runs a container
 * (there is no Docker engine where the tests run); docs/deploy.md says what that leaves open.
 */
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { findKnownSetting, type SettingReader } from '../../config/known-settings';
import { ALERT_RULES } from '../../grafana/src/alerts';
import { buildDashboards } from '../../grafana/src/index';
import { consoleEnvProblems } from '../../lib/server/env';
import { loadRunnerSettings } from '../../runner/settings';
import { promtool } from '../helpers/prometheus';
import {
  readComposeFile,
  readEnvFile,
  referencedVariables,
  type ComposeFile,
  type Mount,
  type Service,
} from './compose-file';
import { copyOf, envOf, readDockerfile, stageChain } from './dockerfile';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const deployDir = path.join(repoRoot, 'deploy');
const composePath = path.join(deployDir, 'compose.yaml');
const composeText = readFileSync(composePath, 'utf8');
const envExample = readEnvFile(path.join(deployDir, '.env.example'));
const read = (...parts: string[]) => readFileSync(path.join(repoRoot, ...parts), 'utf8');
const readYaml = (...parts: string[]): unknown => parse(read(...parts));

/** .env.example with every empty value (the secrets) filled in as a person would. */
const filledEnv: Record<string, string> = Object.fromEntries(
  [...envExample].map(([key, value]) => [key, value || `${key.toLowerCase()}-0123456789abcdef`]),
);
const compose = readComposeFile(composePath, filledEnv);
/** The same with only the required variables given: every default of the compose file used. */
const withDefaults = readComposeFile(
  composePath,
  Object.fromEntries(
    [...referencedVariables(composeText)]
      .filter(([, { required }]) => required)
      .map(([name]) => [name, filledEnv[name]]),
  ),
);
const service = (name: string): Service => {
  const found = compose.services[name];
  if (!found) throw new Error(`deploy/compose.yaml has no service ${name}`);
  return found;
};
const stages = readDockerfile(path.join(deployDir, 'Dockerfile'));
const inRepo = (file: string) => !path.relative(repoRoot, file).startsWith('..');
const mountFrom = (svc: Service, ...repoPath: string[]): Mount | undefined =>
  svc.mounts.find((m) => m.type === 'bind' && m.source === path.join(repoRoot, ...repoPath));

/** `name:tag` with a full version (x.y.z, optionally v-prefixed and suffixed), never latest. */
const PINNED = /^[a-z0-9./_-]+:v?\d+\.\d+\.\d+(-[a-z0-9.-]+)?$/;

describe('images', () => {
  it('every image in the compose file is pinned to an exact version, or built here', () => {
    expect(PINNED.test('redis:7')).toBe(false);
    expect(PINNED.test('grafana/grafana:latest')).toBe(false);
    expect(PINNED.test('prom/prometheus:v3.5')).toBe(false);
    for (const [name, svc] of Object.entries(compose.services)) {
      if (svc.build) expect(svc.image, name).toMatch(/:local$/);
      else expect(svc.image, name).toMatch(PINNED);
    }
  });

  it('every FROM in the Dockerfile is an earlier stage or a pinned image', () => {
    const seen = new Set<string>();
    for (const stage of stages) {
      if (!seen.has(stage.from)) expect(stage.from, stage.name).toMatch(PINNED);
      seen.add(stage.name);
    }
  });
});

describe('the Dockerfile', () => {
  const copies = stages.flatMap((stage) =>
    stage.instructions.filter((i) => i.keyword === 'COPY').map((i) => copyOf(i.args)),
  );

  it('copies only files that exist in the repository', () => {
    const sources = copies.filter((c) => !c.from).flatMap((c) => c.sources);
    expect(sources.length).toBeGreaterThan(5);
    const missing = sources.filter((source) => !existsSync(path.join(repoRoot, source)));
    expect(missing).toEqual([]);
  });

  it('copies from stages it defines, and never the whole context', () => {
    for (const copy of copies) {
      if (copy.from)
        expect(
          stages.map((s) => s.name),
          copy.from,
        ).toContain(copy.from);
      for (const source of copy.sources)
        expect(source, 'COPY . copies local secrets').not.toBe('.');
    }
  });

  it('keeps local state and secrets out of the build context, and no source it needs', () => {
    const ignored = read('deploy', 'Dockerfile.dockerignore')
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line !== '' && !line.startsWith('#'));
    for (const secret of ['.oxmq', 'oxmq.config.json', '**/.env', 'node_modules']) {
      expect(ignored).toContain(secret);
    }
    const ignores = (source: string) =>
      ignored.some((pattern) =>
        pattern.startsWith('**/')
          ? path.basename(source) === pattern.slice(3)
          : source === pattern || source.startsWith(`${pattern}/`),
      );
    const sources = copies.filter((c) => !c.from).flatMap((c) => c.sources);
    expect(sources.filter(ignores)).toEqual([]);
  });

  it('installs from the lock file: npm ci, never npm install', () => {
    const runs = stages.flatMap((s) => s.instructions.filter((i) => i.keyword === 'RUN'));
    expect(runs.some((r) => /\bnpm ci\b/.test(r.args))).toBe(true);
    expect(runs.filter((r) => /\bnpm (install|i)\b/.test(r.args))).toEqual([]);
    expect(runs.some((r) => /next\/dist\/bin\/next build/.test(r.args))).toBe(true);
  });

  it.each([
    ['console', '/api/health', path.join('app', 'api', 'health', 'route.ts'), 'PORT'],
    ['runner', '/readyz', path.join('runner', 'health-server.ts'), 'WORKER_HEALTH_PORT'],
  ])(
    'the %s target runs as a non-root user with a health check on %s',
    (target, route, file, portSetting) => {
      const chain = stageChain(stages, target);
      const all = chain.flatMap((s) => s.instructions);
      const last = (keyword: string) => all.filter((i) => i.keyword === keyword).at(-1)?.args;
      expect(last('USER'), target).toBeDefined();
      expect(last('USER'), target).not.toMatch(/^(root|0)(:|$)/);
      const healthcheck = last('HEALTHCHECK') ?? '';
      expect(healthcheck).toContain('deploy/healthcheck.mjs');
      // The URL is the route the process serves, on the port its setting names.
      const url = /"(http:\/\/127\.0\.0\.1:\$\{(\w+):-(\d+)\}(\/\S*))"/.exec(healthcheck);
      expect(url?.[2], healthcheck).toBe(portSetting);
      expect(url?.[4]).toBe(route);
      expect(existsSync(path.join(repoRoot, file))).toBe(true);
      if (file.endsWith('health-server.ts')) expect(read(file)).toContain(`'${route}'`);
      const env = Object.fromEntries(
        all.filter((i) => i.keyword === 'ENV').flatMap((i) => envOf(i.args)),
      );
      expect(env[portSetting] ?? url?.[3], 'the port default').toBe(url?.[3]);
      expect(last('EXPOSE')).toBe(url?.[3]);
    },
  );

  it('sets only known settings and a few documented third-party variables', () => {
    const thirdParty = /^(NODE_ENV|NEXT_TELEMETRY_DISABLED|npm_config_\w+)$/;
    const names = stages.flatMap((s) =>
      s.instructions.filter((i) => i.keyword === 'ENV').flatMap((i) => envOf(i.args)),
    );
    const unknown = names
      .map(([name]) => name)
      .filter((name) => !thirdParty.test(name) && !findKnownSetting(name));
    expect(unknown).toEqual([]);
  });
});

describe('the compose services', () => {
  it.each([
    ['console', 'console'],
    ['runner', 'runner'],
  ] as const)(
    'the %s sets only known settings its process reads (or OpenTelemetry’s own)',
    (name, reader: SettingReader) => {
      const env = service(name).environment;
      expect(Object.keys(env).length).toBeGreaterThan(0);
      // OTEL_* are read by the OpenTelemetry SDK itself (docs/observability.md).
      const wrong = Object.keys(env).filter(
        (key) => !/^OTEL_[A-Z_]+$/.test(key) && !findKnownSetting(key)?.readBy.includes(reader),
      );
      expect(wrong).toEqual([]);
    },
  );

  it('give the console settings its own checks accept (image and compose together)', () => {
    expect(consoleEnvProblems(containerEnv('console'))).toEqual([]);
    expect(consoleEnvProblems(containerEnv('console', withDefaults))).toEqual([]);
  });

  it('give the runner settings its own checks accept, its health server reachable', () => {
    // An empty working directory: no oxmq.config.json of the developer's gets read.
    const cwd = mkdtempSync(path.join(os.tmpdir(), 'oxmq-deploy-'));
    try {
      for (const file of [compose, withDefaults]) {
        const settings = loadRunnerSettings(containerEnv('runner', file), cwd);
        expect(settings.healthHost).toBe('0.0.0.0');
        expect(settings.processorsDirs).toEqual([
          file.services.runner?.environment.OXMQ_PROCESSORS_DIR,
        ]);
      }
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  });

  it('build the targets of the Dockerfile from the repository root', () => {
    for (const [name, svc] of Object.entries(compose.services)) {
      if (!svc.build) continue;
      expect(path.resolve(compose.dir, svc.build.context), name).toBe(repoRoot);
      expect(existsSync(path.join(repoRoot, svc.build.dockerfile)), name).toBe(true);
      expect(
        stages.map((s) => s.name),
        name,
      ).toContain(svc.build.target);
    }
    expect(service('console').build?.target).toBe('console');
    expect(service('runner').build?.target).toBe('runner');
  });

  it('mount only paths that exist in the repository, and declared volumes', () => {
    for (const [name, svc] of Object.entries(compose.services)) {
      for (const mount of svc.mounts) {
        if (mount.type === 'volume') expect(compose.volumes, name).toContain(mount.source);
        else {
          expect(inRepo(mount.source), `${name}: ${mount.source}`).toBe(true);
          expect(existsSync(mount.source), `${name}: ${mount.source}`).toBe(true);
          expect(mount.readOnly, `${name}: ${mount.source} read-only`).toBe(true);
        }
      }
    }
  });

  it('mount the processors where the runner looks for them, beside its code', () => {
    const runner = service('runner');
    const processors = mountFrom(runner, 'processors');
    expect(processors?.target).toBe(runner.environment.OXMQ_PROCESSORS_DIR);
    // A module's `../runner` import resolves only next to the runner's own folder.
    const workdir = stageChain(stages, 'runner')
      .flatMap((s) => s.instructions)
      .filter((i) => i.keyword === 'WORKDIR')
      .at(-1)?.args;
    expect(path.posix.dirname(processors?.target ?? '')).toBe(workdir);
  });

  it('publish ports on the loopback only', () => {
    const ports = Object.values(compose.services).flatMap((svc) => svc.ports);
    expect(ports.length).toBeGreaterThan(0);
    for (const port of ports) expect(port).toMatch(/^127\.0\.0\.1:\d+:\d+$/);
  });

  it('keep Redis append-only and noeviction, behind a password', () => {
    const command = service('redis').command ?? [];
    const option = (name: string) => command[command.indexOf(name) + 1];
    expect(option('--appendonly')).toBe('yes');
    expect(option('--maxmemory-policy')).toBe('noeviction');
    expect(option('--requirepass')).toBe(filledEnv.REDIS_PASSWORD);
    for (const name of ['console', 'runner']) {
      const url = new URL(service(name).environment.REDIS_URL ?? '');
      expect(url.hostname, name).toBe('redis');
      expect(decodeURIComponent(url.password), name).toBe(filledEnv.REDIS_PASSWORD);
    }
  });

  it('give the runner longer to stop than its jobs get', () => {
    const runner = service('runner');
    const timeoutMs = Number(runner.environment.OXMQ_SHUTDOWN_TIMEOUT_MS);
    expect(timeoutMs).toBeGreaterThan(0);
    expect(runner.stopGraceSeconds * 1000).toBeGreaterThan(timeoutMs);
  });
});

describe('deploy/.env.example', () => {
  const variables = referencedVariables(composeText);

  it('lists every variable the compose file reads, and only those', () => {
    expect([...envExample.keys()].sort()).toEqual([...variables.keys()].sort());
  });

  it('holds no secret: every password, secret and token is empty and required', () => {
    for (const [key, value] of envExample) {
      if (!/PASSWORD|SECRET|TOKEN/.test(key)) continue;
      expect(value, key).toBe('');
      expect(variables.get(key)?.required, `${key} must be \${${key}:?…}`).toBe(true);
    }
    // So compose refuses to start until they are filled in.
    expect(() => readComposeFile(composePath, Object.fromEntries(envExample))).toThrow(
      /required variable/,
    );
  });

  it('has its filled-in copy ignored by git', () => {
    expect(read('deploy', '.gitignore').split('\n')).toContain('.env');
  });
});

describe('Prometheus', () => {
  const prometheus = service('prometheus');
  const configMount = mountFrom(prometheus, 'deploy', 'prometheus.yml');
  const config = readYaml('deploy', 'prometheus.yml') as {
    global: { scrape_interval: string };
    rule_files: string[];
    scrape_configs: {
      job_name: string;
      metrics_path: string;
      authorization?: { credentials_file?: string };
      static_configs: { targets: string[] }[];
    }[];
  };
  const job = (name: string) => config.scrape_configs.find((j) => j.job_name === name);

  it('reads deploy/prometheus.yml, mounted where --config.file points', () => {
    expect(prometheus.command).toContain(`--config.file=${configMount?.target}`);
  });

  it('passes promtool check config in the container layout, with the rules it loads', async () => {
    // Every file the service mounts (and its config with the token) at its container path
    // under a temporary root, so the relative paths resolve as they will in the container.
    const root = mkdtempSync(path.join(os.tmpdir(), 'oxmq-deploy-prometheus-'));
    const place = (target: string) => {
      const file = path.join(root, target);
      mkdirSync(path.dirname(file), { recursive: true });
      return file;
    };
    try {
      for (const mount of prometheus.mounts.filter((m) => m.type === 'bind')) {
        copyFileSync(mount.source, place(mount.target));
      }
      for (const config of prometheus.configs) {
        const content = compose.configs[config.source]?.content;
        expect(content, config.source).toBeDefined();
        writeFileSync(place(config.target), content ?? '');
      }
      const { stdout } = await promtool([
        'check',
        'config',
        path.join(root, configMount?.target ?? 'missing'),
      ]);
      expect(stdout).toContain('SUCCESS');
      expect(stdout).toContain(`SUCCESS: ${ALERT_RULES.length} rules found`);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('loads the rules file grafana/build.ts writes', () => {
    const rules = mountFrom(prometheus, 'grafana', 'alerts', 'oxmq-alerts.yml');
    const configDir = path.posix.dirname(configMount?.target ?? '');
    expect(config.rule_files.map((file) => path.posix.resolve(configDir, file))).toEqual([
      rules?.target,
    ]);
  });

  it('names its jobs as the alert rules do', () => {
    const jobsInRules = ALERT_RULES.flatMap((rule) =>
      [...rule.expr.matchAll(/job="([^"]+)"/g)].map((m) => m[1]),
    );
    expect(jobsInRules.length).toBeGreaterThan(0);
    expect(config.scrape_configs.map((j) => j.job_name).sort()).toEqual(
      [...new Set(jobsInRules)].sort(),
    );
  });

  it('scrapes the console on its route, port and token', () => {
    const consoleJob = job('oxmq-console');
    expect(consoleJob?.metrics_path).toBe('/api/prometheus');
    expect(existsSync(path.join(repoRoot, 'app', 'api', 'prometheus', 'route.ts'))).toBe(true);
    expect(consoleJob?.static_configs.flatMap((s) => s.targets)).toEqual([
      `console:${containerEnv('console').PORT}`,
    ]);
    // The token file holds what the console checks: the same compose variable feeds both.
    const configDir = path.posix.dirname(configMount?.target ?? '');
    const tokenFile = path.posix.resolve(
      configDir,
      consoleJob?.authorization?.credentials_file ?? '',
    );
    const tokenConfig = prometheus.configs.find((c) => c.target === tokenFile);
    expect(compose.configs[tokenConfig?.source ?? '']?.content).toBe(
      service('console').environment.OXMQ_METRICS_TOKEN,
    );
  });

  it('scrapes the runner on its route and port, by a name its health server answers', () => {
    const runner = containerEnv('runner');
    const worker = job('oxmq-worker');
    expect(worker?.metrics_path).toBe('/metrics');
    expect(read('runner', 'health-server.ts')).toContain("pathname === '/metrics'");
    const targets = worker?.static_configs.flatMap((s) => s.targets) ?? [];
    expect(targets).toEqual([`runner:${runner.WORKER_HEALTH_PORT}`]);
    expect(runner.WORKER_HEALTH_ALLOWED_HOSTS?.split(',')).toContain('runner');
  });
});

describe('Grafana', () => {
  const grafana = service('grafana');
  const provisioned = readYaml('grafana', 'provisioning', 'dashboards', 'oxmq.yaml') as {
    providers: { options: { path: string } }[];
  };

  it('sets only its own GF_ variables', () => {
    expect(Object.keys(grafana.environment).filter((key) => !key.startsWith('GF_'))).toEqual([]);
  });

  it('mounts the dashboards grafana/build.ts writes where the provisioning reads them', () => {
    const dashboards = mountFrom(grafana, 'grafana', 'dashboards');
    expect(dashboards?.target).toBe(provisioned.providers[0]?.options.path);
    const files = readdirSync(dashboards?.source ?? '').filter((f) => f.endsWith('.json'));
    expect(files.sort()).toEqual(
      buildDashboards()
        .map((b) => b.file)
        .sort(),
    );
  });

  it('provisions the dashboards, the alert rules and the data source', () => {
    const at = (target: string) => grafana.mounts.find((m) => m.target === target);
    const base = '/etc/grafana/provisioning';
    expect(at(`${base}/dashboards`)?.source).toBe(
      path.join(repoRoot, 'grafana', 'provisioning', 'dashboards'),
    );
    expect(at(`${base}/alerting`)?.source).toBe(
      path.join(repoRoot, 'grafana', 'provisioning', 'alerting'),
    );
    expect(readdirSync(at(`${base}/alerting`)?.source ?? '')).toContain('oxmq-alerts.yaml');
    expect(at(`${base}/datasources`)?.source).toBe(path.join(deployDir, 'grafana', 'datasources'));
  });

  it("uses grafana/provisioning's data source, with this stack's Prometheus as its URL", () => {
    type Datasources = {
      datasources: { url: string; jsonData: { timeInterval: string } }[];
    };
    const shared = readYaml('grafana', 'provisioning', 'datasources', 'oxmq.yaml') as Datasources;
    const here = readYaml('deploy', 'grafana', 'datasources', 'oxmq.yaml') as Datasources;
    const withoutUrl = ({ datasources }: Datasources) =>
      datasources.map(({ url: _url, ...rest }) => rest);
    expect(withoutUrl(here)).toEqual(withoutUrl(shared));
    // The prometheus service, on the port Prometheus listens on unless told otherwise.
    expect(here.datasources.map((d) => d.url)).toEqual(['http://prometheus:9090']);
    const command = service('prometheus').command ?? [];
    expect(command.filter((option) => option.startsWith('--web.listen-address'))).toEqual([]);
    const config = readYaml('deploy', 'prometheus.yml') as { global: { scrape_interval: string } };
    expect(here.datasources[0]?.jsonData.timeInterval).toBe(config.global.scrape_interval);
  });
});

/** What a service's process finds in its environment: its image's ENV, then the compose file's. */
function containerEnv(name: string, file: ComposeFile = compose): Record<string, string> {
  const svc = file.services[name];
  if (!svc) throw new Error(`deploy/compose.yaml has no service ${name}`);
  const image = Object.fromEntries(
    stageChain(stages, svc.build?.target ?? '')
      .flatMap((s) => s.instructions)
      .filter((i) => i.keyword === 'ENV')
      .flatMap((i) => envOf(i.args)),
  );
  return { ...image, ...svc.environment };
}
