import { MetricsOverview } from '@/components/metrics/metrics-overview';

export default function MetricsPage() {
  return (
    <>
      <h1>Metrics</h1>
      <p>Completed and failed jobs per minute over the last hour.</p>
      <MetricsOverview />
    </>
  );
}
