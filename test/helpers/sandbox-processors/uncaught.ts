/**
 * Fixture: crashes its sandbox from outside the job's promise: an exception thrown in a timer
 * (`data.kind` 'exception'), or a rejection nobody handles ('rejection'). The job never settles.
 */
export default function uncaught(job: { data: { kind: 'exception' | 'rejection' } }) {
  setTimeout(() => {
    if (job.data.kind === 'exception') throw new Error('thrown in a timer');
    void Promise.reject(new Error('rejected and never handled'));
  }, 10);
  return new Promise(() => undefined);
}
