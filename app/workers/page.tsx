import { WorkersList } from '@/components/workers/workers-list';

export default function WorkersPage() {
  return (
    <>
      <h1>Workers</h1>
      <WorkersList />
    </>
  );
}
