import { maskRedisUrl } from 'oxmq';

/**
 * Every setting any OxMQ process reads, as data: the config loader rejects config-file keys not
 * listed here (a typo guard that works across processes), and the settings table of docs/configuration.md is
 * generated from it (config/settings-table.ts). Add a line here when a process learns a setting.
 */

/** The processes that read a setting. */
export type SettingReader = 'runner' | 'launcher' | 'demo' | 'console';

export interface KnownSetting {
  /** The environment variable name, also the config-file key. */
  readonly name: string;
  /** The default as a person reads it ('–' when unset means off or none). */
  readonly default: string;
  /** One line: what it does. */
  readonly doc: string;
  readonly readBy: readonly SettingReader[];
  /** Never echoed back in error messages. */
  readonly secret?: boolean;
  /** How error messages show a value that may hold a secret (a URL's password). */
  readonly shownAs?: (value: string) => string;
}

export const KNOWN_SETTINGS: readonly KnownSetting[] = [
  {
    name: 'OXMQ_CONFIG',
    default: '`oxmq.config.json` in the working directory, if present',
    doc: 'Path of the JSON config file (then it must exist); its keys are these names, the environment wins.',
    readBy: ['runner', 'launcher', 'demo'],
  },
  {
    name: 'REDIS_URL',
    default: '`redis://127.0.0.1:6379` (launcher: unset = embedded Redis)',
    doc: 'The Redis holding the queues (`redis://` or `rediss://`). Give one of `REDIS_URL`, `REDIS_CLUSTER_NODES` or `REDIS_SENTINELS`.',
    readBy: ['runner', 'launcher', 'demo', 'console'],
    shownAs: maskRedisUrl,
  },
  {
    name: 'REDIS_CLUSTER_NODES',
    default: '–',
    doc: 'A Redis Cluster instead: comma-separated `host:port` of some of its nodes; queues need hash tags (`OXMQ_CLUSTER_HASH_TAGS`).',
    readBy: ['runner', 'launcher', 'demo', 'console'],
  },
  {
    name: 'REDIS_SENTINELS',
    default: '–',
    doc: 'A Sentinel-managed Redis instead: comma-separated `host:port` of the sentinels; with `REDIS_SENTINEL_NAME`.',
    readBy: ['runner', 'launcher', 'demo', 'console'],
  },
  {
    name: 'REDIS_SENTINEL_NAME',
    default: '–',
    doc: 'The name of the master the sentinels watch (required with `REDIS_SENTINELS`).',
    readBy: ['runner', 'launcher', 'demo', 'console'],
  },
  {
    name: 'REDIS_USERNAME',
    default: '–',
    doc: 'ACL user for the cluster nodes or the Sentinel-managed servers (with `REDIS_URL`, put it in the URL).',
    readBy: ['runner', 'launcher', 'demo', 'console'],
  },
  {
    name: 'REDIS_PASSWORD',
    default: '–',
    doc: 'Password for the cluster nodes or the Sentinel-managed servers (with `REDIS_URL`, put it in the URL).',
    readBy: ['runner', 'launcher', 'demo', 'console'],
    secret: true,
  },
  {
    name: 'REDIS_SENTINEL_PASSWORD',
    default: '–',
    doc: "The sentinels' own password, when they require one.",
    readBy: ['runner', 'launcher', 'demo', 'console'],
    secret: true,
  },
  {
    name: 'REDIS_TLS',
    default: '`false` (`true` for a `rediss://` URL)',
    doc: 'TLS on every Redis connection: each cluster node, the sentinels and their master, or the `REDIS_URL` server.',
    readBy: ['runner', 'launcher', 'demo', 'console'],
  },
  {
    name: 'OXMQ_CLUSTER_HASH_TAGS',
    default: '`false`',
    doc: "Wrap each queue's name in a hash tag (`email` → `{email}`), as a Redis Cluster needs; for the runner's workers and the demo's queues.",
    readBy: ['runner', 'launcher', 'demo'],
  },
  {
    name: 'OXMQ_PREFIX',
    default: '`bull`',
    doc: 'Key prefix of the queues the worker runner serves and the demo feeds.',
    readBy: ['runner', 'launcher', 'demo'],
  },
  {
    name: 'OXMQ_PROCESSORS_DIR',
    default: '`processors`',
    doc: 'Comma-separated folders of processor modules the worker runner loads.',
    readBy: ['runner', 'launcher'],
  },
  {
    name: 'WORKER_HEALTH_PORT',
    default: '`3001`',
    doc: "Port of the worker runner's health server (/livez, /readyz, /health, /metrics); 0 = any free port.",
    readBy: ['runner', 'launcher'],
  },
  {
    name: 'WORKER_HEALTH_HOST',
    default: '`127.0.0.1`',
    doc: "Address of the runner's health server; `0.0.0.0` lets Prometheus on another host scrape its /metrics (or use a sidecar).",
    readBy: ['runner'],
  },
  {
    name: 'WORKER_HEALTH_ALLOWED_HOSTS',
    default: '–',
    doc: 'Host names (comma-separated, no port) the health server answers besides IP addresses and `localhost`, e.g. a Service name a scraper uses; `*` for any (DNS rebinding guard off).',
    readBy: ['runner'],
  },
  {
    name: 'OXMQ_SHUTDOWN_TIMEOUT_MS',
    default: '`25000`',
    doc: 'How long running jobs may finish after SIGTERM before they go back to wait.',
    readBy: ['runner', 'launcher'],
  },
  {
    name: 'OXMQ_LOG_LEVEL',
    default: '`info`',
    doc: 'Log level: trace, debug, info, warn, error, fatal or silent.',
    readBy: ['runner', 'launcher', 'demo'],
  },
  {
    name: 'PORT',
    default: '`3000`',
    doc: "The console's HTTP port when started by the launcher.",
    readBy: ['launcher'],
  },
  {
    name: 'HOST',
    default: '`127.0.0.1`',
    doc: 'Address the console listens on under the launcher; `0.0.0.0` (or `::`) lets other machines connect (put TLS in front).',
    readBy: ['launcher'],
  },
  {
    name: 'OXMQ_DATA_DIR',
    default: '`.oxmq`',
    doc: "The launcher's data folder (embedded Redis data, generated secrets).",
    readBy: ['launcher'],
  },
  {
    name: 'OXMQ_DEMO',
    default: '`false`',
    doc: 'The launcher also starts the demo producer and its processors.',
    readBy: ['launcher'],
  },
  {
    name: 'OXMQ_WORKER',
    default: '`true`',
    doc: 'The launcher also starts the worker runner.',
    readBy: ['launcher'],
  },
  {
    name: 'OXMQ_DEMO_SPEED',
    default: '`1`',
    doc: 'How much faster than life the demo runs (0.1 to 100).',
    readBy: ['demo'],
  },
  {
    name: 'OXMQ_PREFIXES',
    default: '`bull`',
    doc: 'Comma-separated queue prefixes the console shows, e.g. `bull,{payments}`.',
    readBy: ['console', 'launcher'],
  },
  {
    name: 'OXMQ_ADMIN_USER',
    default: '–',
    doc: "The console's first admin's username; set together with `OXMQ_ADMIN_PASSWORD`.",
    readBy: ['console', 'launcher'],
  },
  {
    name: 'OXMQ_ADMIN_PASSWORD',
    default: '–',
    doc: "The console's first admin's password (8+ characters).",
    readBy: ['console', 'launcher'],
    secret: true,
  },
  {
    name: 'OXMQ_USERS',
    default: '–',
    doc: 'More console users: a JSON array with bcrypt hashes, or the path of a JSON file.',
    readBy: ['console', 'launcher'],
    secret: true,
  },
  {
    name: 'OXMQ_HISTORY_SAMPLER',
    default: '`true`',
    doc: "Take part in sampling each queue's backlog every minute for the history charts (one process at a time holds the lease; docs/metrics.md).",
    readBy: ['runner', 'console', 'launcher'],
  },
  {
    name: 'OXMQ_READ_ONLY',
    default: '`false`',
    doc: 'The console refuses every mutation (403 `READ_ONLY`).',
    readBy: ['console', 'launcher'],
  },
  {
    name: 'OXMQ_REDACT_KEYS',
    default: '–',
    doc: 'More key names the console redacts (added to the defaults), comma-separated.',
    readBy: ['console', 'launcher'],
  },
  {
    name: 'OXMQ_METRICS_TOKEN',
    default: '– (`/api/prometheus` answers 404)',
    doc: 'Bearer token Prometheus sends to scrape the console at `/api/prometheus` (16+ characters).',
    readBy: ['console', 'launcher'],
    secret: true,
  },
  {
    name: 'OXMQ_METRICS_CACHE_MS',
    default: '`5000`',
    doc: 'How long one `/api/prometheus` collection serves every scrape (0 = only scrapes at the same time share one).',
    readBy: ['console', 'launcher'],
  },
  {
    name: 'OXMQ_METRICS_MAX_QUEUES',
    default: '`500`',
    doc: 'Most queues one `/api/prometheus` scrape describes; the rest are counted in `oxmq_scrape_queues_omitted`.',
    readBy: ['console', 'launcher'],
  },
  {
    name: 'OXMQ_OLD_BACKLOG_MINUTES',
    default: '`10`',
    doc: 'A waiting job older than this many minutes makes the overview report an old backlog (1 to 10080).',
    readBy: ['console', 'launcher'],
  },
  {
    name: 'OXMQ_AUDIT_RETENTION_DAYS',
    default: '`90`',
    doc: 'Audit entries older than this many days are trimmed (each stream also keeps a bounded count).',
    readBy: ['console', 'launcher'],
  },
  {
    name: 'OXMQ_TRUSTED_PROXY_HOPS',
    default: '`0`',
    doc: 'Reverse proxies in front of the console that append the client to `X-Forwarded-For`; sign-ins are then also throttled per client address.',
    readBy: ['console', 'launcher'],
  },
  {
    name: 'OXMQ_SESSION_ABSOLUTE_HOURS',
    default: '`24`',
    doc: 'A console session ends this many hours after its sign-in however active it is (1 to 720); idle sessions end after 8 hours.',
    readBy: ['console', 'launcher'],
  },
  {
    name: 'OXMQ_TRACE_URL',
    default: '– (trace ids shown as text)',
    doc: 'Trace viewer link for job and flow pages, with `{traceId}` where the id goes, e.g. `https://tempo.example/explore?traceId={traceId}`.',
    readBy: ['console', 'launcher'],
  },
  {
    name: 'OXMQ_GRAFANA_URL',
    default: '– (no dashboard links)',
    doc: "Base URL of a Grafana with OxMQ's dashboards (grafana/); queue pages and the overview link to them.",
    readBy: ['console', 'launcher'],
  },
  {
    name: 'OXMQ_NOTIFY_WEBHOOKS',
    default: '– (no notifications)',
    doc: 'Webhooks the console sends queue problems to as they start and clear: a JSON array of `{"url", "format": "json" or "slack", "name"?}` (docs/observability.md, Notifications).',
    readBy: ['console', 'launcher'],
    secret: true,
  },
  {
    name: 'OXMQ_NOTIFY_INTERVAL_MS',
    default: '`30000`',
    doc: 'How often the console that holds the notifier lease looks for problems that started or cleared (100 to 3600000).',
    readBy: ['console', 'launcher'],
  },
  {
    name: 'OXMQ_NOTIFY_PAUSED_SECONDS',
    default: '`1800`',
    doc: 'A queue paused this many seconds is notified as paused too long (a pause alone is not notified).',
    readBy: ['console', 'launcher'],
  },
  {
    name: 'OXMQ_NOTIFY_MAX_ATTEMPTS',
    default: '`5`',
    doc: 'Attempts per notification and webhook, the first included (1 to 20); a delivery that fails them all is audited.',
    readBy: ['console', 'launcher'],
  },
  {
    name: 'OXMQ_NOTIFY_RETRY_MS',
    default: '`1000`',
    doc: 'Wait before a failed notification is sent again; doubled at each further attempt (at most 5 minutes).',
    readBy: ['console', 'launcher'],
  },
  {
    name: 'OXMQ_NOTIFY_TIMEOUT_MS',
    default: '`5000`',
    doc: 'How long one webhook request may take before it counts as failed (100 to 60000).',
    readBy: ['console', 'launcher'],
  },
  {
    name: 'NEXTAUTH_SECRET',
    default: 'required (the launcher generates one)',
    doc: 'Signs console session cookies; 16+ characters (`openssl rand -base64 32`).',
    readBy: ['console', 'launcher'],
    secret: true,
  },
  {
    name: 'NEXTAUTH_URL',
    default: 'required (the launcher sets it)',
    doc: 'The origin console users open, port included.',
    readBy: ['console', 'launcher'],
  },
];

export const KNOWN_SETTING_NAMES: ReadonlySet<string> = new Set(
  KNOWN_SETTINGS.map((setting) => setting.name),
);

export function findKnownSetting(name: string): KnownSetting | undefined {
  return KNOWN_SETTINGS.find((setting) => setting.name === name);
}
