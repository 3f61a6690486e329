--[[
  Two-phase stalled-job check, throttled cluster-wide by the stalled-check key.
  Phase 1 judges the ids marked at the previous check: those still active without a lock are put
  back at the front of the wait list (with a deferred failure once they stalled too often); a
  grouped job at the front of its group's line, leaving its group's active set.
  Phase 2 marks every job active now, to be judged at the next check.

  KEYS[1] stalled  KEYS[2] wait  KEYS[3] active  KEYS[4] stalled-check
  KEYS[5] meta     KEYS[6] marker KEYS[7] events KEYS[8] repeat

  ARGV[1] maxStalledCount  ARGV[2] Q  ARGV[3] now  ARGV[4] stalledInterval (ms)

  Returns the ids recovered from a stall.
]]
--- @include "getMaxEvents"
--- @include "isPausedOrMaxed"
--- @include "markers"
--- @include "groups"

local Q = ARGV[2]
local maxStalledCount = tonumber(ARGV[1])

if redis.call("EXISTS", KEYS[4]) == 1 then
  return {}
end
redis.call("SET", KEYS[4], ARGV[3], "PX", ARGV[4])
redis.call("XTRIM", KEYS[7], "MAXLEN", "~", getMaxEvents(KEYS[5]))

local recovered = {}
local candidates = redis.call("SMEMBERS", KEYS[1])
redis.call("DEL", KEYS[1])
for _, jobId in ipairs(candidates) do
  if string.sub(jobId, 1, 2) == "0:" then
    redis.call("LREM", KEYS[3], 1, jobId)
  else
    local jobKey = Q .. jobId
    if redis.call("EXISTS", jobKey .. ":lock") == 0 and redis.call("LREM", KEYS[3], 1, jobId) > 0 then
      local stalledCount = redis.call("HINCRBY", jobKey, "stc", 1)
      -- Iterations of a live job scheduler are never failed for stalling.
      local schedulerId = redis.call("HGET", jobKey, "rjk")
      local isSchedulerJob = schedulerId and (redis.call("EXISTS", Q .. "repeat:" .. schedulerId) == 1
        or redis.call("ZSCORE", KEYS[8], schedulerId))
      if stalledCount > maxStalledCount and not isSchedulerJob then
        redis.call("HSET", jobKey, "defa", "job stalled more than allowable limit")
      end
      local gid = leaveGroupActiveOf(Q, jobId)
      if gid then
        pushGroupedJob(Q, gid, jobId, "RPUSH")
      else
        redis.call("RPUSH", KEYS[2], jobId)
      end
      signalJobsReady(KEYS[6], isPausedOrMaxed(KEYS[5], KEYS[3]))
      redis.call("XADD", KEYS[7], "*", "event", "waiting", "jobId", jobId, "prev", "active")
      redis.call("XADD", KEYS[7], "*", "event", "stalled", "jobId", jobId)
      table.insert(recovered, jobId)
    end
  end
end

-- Mark in slices: unpack has a stack limit.
local active = redis.call("LRANGE", KEYS[3], 0, -1)
for from = 1, #active, 5000 do
  redis.call("SADD", KEYS[1], unpack(active, from, math.min(from + 4999, #active)))
end
return recovered
