--[[
  Job.promote: a delayed job runs now, at the back of the wait list (or in prioritized); a
  grouped one (in Q group-delayed) at the back of its group's line.

  KEYS[1] delayed  KEYS[2] wait  KEYS[3] meta  KEYS[4] prioritized  KEYS[5] active  KEYS[6] pc
  KEYS[7] events  KEYS[8] marker

  ARGV[1] Q  ARGV[2] jobId

  Returns 0, or -3 when the job is not delayed.
]]
--- @include "isPausedOrMaxed"
--- @include "enqueueReadyJob"

local jobId = ARGV[2]
local jobKey = ARGV[1] .. jobId
if redis.call("ZREM", KEYS[1], jobId) == 0
    and redis.call("ZREM", ARGV[1] .. "group-delayed", jobId) == 0 then
  return -3
end

-- A legacy "0:" marker at the head would otherwise sit in front of the promoted job.
local head = redis.call("LINDEX", KEYS[2], 0)
if head and string.sub(head, 1, 2) == "0:" then
  redis.call("LPOP", KEYS[2])
end

local priority = tonumber(redis.call("HGET", jobKey, "priority")) or 0
enqueueReadyJob(KEYS[2], KEYS[4], KEYS[6], KEYS[8], jobId, priority, "LPUSH", isPausedOrMaxed(KEYS[3], KEYS[5]))
redis.call("XADD", KEYS[7], "*", "event", "waiting", "jobId", jobId, "prev", "delayed")
redis.call("HSET", jobKey, "delay", 0)
return 0
