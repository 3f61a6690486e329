// A sandboxed processor in TypeScript: without tsx installed, a Worker refuses it up front.
export default async function typed(job: { data: { n: number } }): Promise<number> {
  return job.data.n + 1;
}
