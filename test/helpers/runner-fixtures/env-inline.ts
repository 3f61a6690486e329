/** Fixture: an in-process processor that reports the names of the variables it can read. */
export const queue = 'env-inline';

export default async function variables() {
  return { names: Object.keys(process.env).sort(), myService: process.env.MY_SERVICE_URL };
}
