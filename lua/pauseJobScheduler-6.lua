--[[
  Pauses a job scheduler (Queue.pauseJobScheduler, an OxMQ extension; docs/redis-keys.md): takes
  its pending iteration out if it has not started yet (delayed, prioritized or waiting, announced
  with a `removed` event) and marks `Q repeat:<id>` paused with OxMQ-only fields that bullmq
  ignores: `oxmq.pausedAt` (ms) and `oxmq.nextCount`, the `repeat.count` the next iteration will
  carry on resume, so a `limit` still counts the iterations already made. The score in `Q repeat`
  is kept: bullmq still lists the scheduler, with the time of the run that was taken out. An
  iteration already running finishes normally; OxMQ's updateJobScheduler sees the mark and
  creates no successor. Pausing a paused scheduler takes out any iteration that appeared since
  (a bullmq worker does not know the mark) and keeps the first pause time.

  KEYS[1] repeat  KEYS[2] delayed  KEYS[3] prioritized  KEYS[4] wait  KEYS[5] events
  KEYS[6] meta

  ARGV[1] scheduler id  ARGV[2] Q (with trailing colon)  ARGV[3] now (ms)

  Returns 0 when there is no such scheduler, 1 when it is paused now, 2 when it already was.
]]
--- @include "schedulerJobs"
--- @include "getMaxEvents"

local repeatKey = KEYS[1]
local schedulerId = ARGV[1]
local schedulerKey = repeatKey .. ":" .. schedulerId
local k = {base = ARGV[2], delayed = KEYS[2], prioritized = KEYS[3], wait = KEYS[4]}

local millis = tonumber(redis.call("ZSCORE", repeatKey, schedulerId))
if not millis or redis.call("EXISTS", schedulerKey) == 0 then
  return 0
end

-- The repeat.count an iteration carries (nil when its opts are unreadable or it is gone).
local function iterationCount(jobId)
  local raw = redis.call("HGET", k.base .. jobId, "opts")
  if not raw then
    return nil
  end
  local ok, opts = pcall(cjson.decode, raw)
  if not ok or type(opts) ~= "table" or type(opts["repeat"]) ~= "table" then
    return nil
  end
  return tonumber(opts["repeat"]["count"])
end

local jobId = schedulerIterationId(schedulerId, millis)
local state = pendingIterationState(k, jobId)
local nextCount
if state then
  -- It never ran: on resume its successor takes its number.
  nextCount = iterationCount(jobId)
  removePendingIteration(k, jobId, state)
  redis.call("XADD", KEYS[5], "MAXLEN", "~", getMaxEvents(KEYS[6]), "*", "event",
    "removed", "jobId", jobId, "prev", state)
else
  -- Running or finished already: the next one is the one after it.
  local count = iterationCount(jobId)
  if count then
    nextCount = count + 1
  end
end

local already = redis.call("HEXISTS", schedulerKey, "oxmq.pausedAt") == 1
if not already then
  redis.call("HSET", schedulerKey, "oxmq.pausedAt", ARGV[3])
end
if nextCount and (not already or state) then
  redis.call("HSET", schedulerKey, "oxmq.nextCount", nextCount)
end
if already then
  return 2
end
return 1
