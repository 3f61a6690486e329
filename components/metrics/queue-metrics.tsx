'use client';
import { useState } from 'react';
import { ThroughputChart } from './throughput-chart';
import { useQueueMetrics } from './use-metrics';

const WINDOWS = [
  { minutes: 60, label: '1 hour' },
  { minutes: 360, label: '6 hours' },
  { minutes: 1_440, label: '24 hours' },
] as const;

export function QueueMetricsView({ prefix, name }: { prefix: string; name: string }) {
  const [minutes, setMinutes] = useState<number>(60);
  const { data, error, isPending } = useQueueMetrics(prefix, name, minutes);
  return (
    <>
      <label>
        Window{' '}
        <select value={minutes} onChange={(event) => setMinutes(Number(event.target.value))}>
          {WINDOWS.map((window) => (
            <option key={window.minutes} value={window.minutes}>
              {window.label}
            </option>
          ))}
        </select>
      </label>
      {isPending ? (
        <p aria-live="polite">Loading metrics…</p>
      ) : error ? (
        <p role="alert" className="notice error">
          Could not load metrics: {error.message}
        </p>
      ) : (
        <section className="card" data-queue={name} aria-label={`Throughput of ${name}`}>
          <ThroughputChart metrics={data} minutes={data.minutes} height={320} />
        </section>
      )}
    </>
  );
}
