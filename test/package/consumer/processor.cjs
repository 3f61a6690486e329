// A sandboxed processor: runs in a child process started by the package.
module.exports = async (job) => ({ square: job.data.n * job.data.n, pid: process.pid });
