import { QueueOverviewList } from '@/components/queues/queue-overview';

export default function OverviewPage() {
  return (
    <>
      <h1>Queues</h1>
      <QueueOverviewList />
    </>
  );
}
