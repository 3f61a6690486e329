--[[
  Stores a job's progress and announces it.
  KEYS[1] job hash  KEYS[2] events  KEYS[3] meta
  ARGV[1] jobId  ARGV[2] progress (JSON text)
  Returns 0, or -1 when the job is missing.
]]
--- @include "getMaxEvents"
if redis.call("EXISTS", KEYS[1]) == 0 then
  return -1
end
redis.call("HSET", KEYS[1], "progress", ARGV[2])
redis.call("XADD", KEYS[2], "MAXLEN", "~", getMaxEvents(KEYS[3]), "*", "event", "progress", "jobId", ARGV[1], "data", ARGV[2])
return 0
