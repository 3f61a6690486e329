/** Fixture: an ES module processor (.mts). */
export default async function esm(job: { data: { n: number } }) {
  return { style: 'esm', n: job.data.n };
}
