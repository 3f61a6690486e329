--[[
  Notes in the events stream how a cancel request ended, for the job's timeline: `cancelled`
  when the attempt ended as cancelled (ARGV[3] `stopped`: the processor gave up on its signal;
  `force-stopped`: the worker killed its sandbox child), `cancel-ignored` when the processor
  returned a result anyway and the job completed.

  KEYS[1] Q events  KEYS[2] Q meta
  ARGV[1] jobId  ARGV[2] event (`cancelled` or `cancel-ignored`)  ARGV[3] outcome

  Returns 1.
]]
--- @include "getMaxEvents"

local maxEvents = getMaxEvents(KEYS[2])
redis.call("XADD", KEYS[1], "MAXLEN", "~", maxEvents, "*", "event", ARGV[2], "jobId", ARGV[1],
  "outcome", ARGV[3])
return 1
