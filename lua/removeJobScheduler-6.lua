--[[
  Removes a job scheduler (Queue.removeJobScheduler): its entry in `Q repeat`, its hash, and its
  pending iteration if that has not started yet (delayed, prioritized or waiting), announced
  with a `removed` event. An iteration already running finishes normally and, finding no
  scheduler, creates no successor.

  KEYS[1] repeat  KEYS[2] delayed  KEYS[3] prioritized  KEYS[4] wait  KEYS[5] events
  KEYS[6] meta

  ARGV[1] scheduler id  ARGV[2] Q (with trailing colon)

  Returns 1 when the scheduler existed, 0 otherwise.
]]
--- @include "schedulerJobs"
--- @include "getMaxEvents"

local repeatKey = KEYS[1]
local schedulerId = ARGV[1]
local k = {base = ARGV[2], delayed = KEYS[2], prioritized = KEYS[3], wait = KEYS[4]}

local millis = tonumber(redis.call("ZSCORE", repeatKey, schedulerId))
if millis then
  local jobId = schedulerIterationId(schedulerId, millis)
  local state = pendingIterationState(k, jobId)
  if state then
    removePendingIteration(k, jobId, state)
    redis.call("XADD", KEYS[5], "MAXLEN", "~", getMaxEvents(KEYS[6]), "*", "event",
      "removed", "jobId", jobId, "prev", state)
  end
end
redis.call("DEL", repeatKey .. ":" .. schedulerId)
return redis.call("ZREM", repeatKey, schedulerId)
