/** Fixture: a CommonJS processor module (module.exports = fn). */
module.exports = async function commonjs(job) {
  return { style: 'commonjs', n: job.data.n };
};
