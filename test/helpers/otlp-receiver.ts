/**
 * A tiny OTLP/HTTP receiver for tests: accepts POST /v1/traces in the JSON encoding
 * (OTEL_EXPORTER_OTLP_PROTOCOL=http/json) on a free port and keeps every span, flattened with
 * its service name and decoded attributes. Other signals are accepted and dropped.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

type AnyValue = {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
  arrayValue?: { values?: AnyValue[] };
};
type KeyValue = { key: string; value: AnyValue };

export interface ReceivedSpan {
  service: string;
  scope: string;
  name: string;
  /** OTLP's enum: 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  attributes: Record<string, unknown>;
  events: { name: string; attributes: Record<string, unknown> }[];
  links: { traceId: string; spanId: string }[];
  /** 0 unset, 1 ok, 2 error. */
  statusCode: number;
}

export const OTLP_KIND = { producer: 4, consumer: 5 } as const;

function decodeValue(value: AnyValue): unknown {
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.arrayValue) return (value.arrayValue.values ?? []).map(decodeValue);
  return undefined;
}

function decodeAttributes(list: KeyValue[] | undefined): Record<string, unknown> {
  return Object.fromEntries((list ?? []).map(({ key, value }) => [key, decodeValue(value)]));
}

interface ExportRequest {
  resourceSpans?: {
    resource?: { attributes?: KeyValue[] };
    scopeSpans?: {
      scope?: { name?: string };
      spans?: {
        name: string;
        kind: number;
        traceId: string;
        spanId: string;
        parentSpanId?: string;
        attributes?: KeyValue[];
        events?: { name: string; attributes?: KeyValue[] }[];
        links?: { traceId: string; spanId: string }[];
        status?: { code?: number };
      }[];
    }[];
  }[];
}

export interface OtlpReceiver {
  readonly endpoint: string;
  spans(): ReceivedSpan[];
  close(): Promise<void>;
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const received: ReceivedSpan[] = [];
  const server = http.createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (body += chunk));
    request.on('end', () => {
      if (request.method === 'POST' && request.url === '/v1/traces') {
        collect(JSON.parse(body) as ExportRequest, received);
      }
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    spans: () => [...received],
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function collect(request: ExportRequest, into: ReceivedSpan[]): void {
  for (const resourceSpans of request.resourceSpans ?? []) {
    const resource = decodeAttributes(resourceSpans.resource?.attributes);
    for (const scopeSpans of resourceSpans.scopeSpans ?? []) {
      for (const span of scopeSpans.spans ?? []) {
        into.push({
          service: String(resource['service.name']),
          scope: scopeSpans.scope?.name ?? '',
          name: span.name,
          kind: span.kind,
          traceId: span.traceId,
          spanId: span.spanId,
          parentSpanId: span.parentSpanId || undefined,
          attributes: decodeAttributes(span.attributes),
          events: (span.events ?? []).map((event) => ({
            name: event.name,
            attributes: decodeAttributes(event.attributes),
          })),
          links: (span.links ?? []).map(({ traceId, spanId }) => ({ traceId, spanId })),
          statusCode: span.status?.code ?? 0,
        });
      }
    }
  }
}
