--[[
  Creates the next iteration of a job scheduler when a worker starts the current one. Only the
  current iteration may do so (its id equals "repeat:<id>:<score in Q repeat>"), so however many
  workers, processes or re-fetches of a stalled iteration call this, each iteration produces at
  most one successor. For every-schedules the next slot is computed here from the score; for
  cron the client computes it. The job takes name and data from the scheduler hash.

  KEYS[1] repeat   KEYS[4]  id         KEYS[7]  pc       KEYS[10] active
  KEYS[2] wait     KEYS[5]  delayed    KEYS[8]  marker   KEYS[11] waiting-children
  KEYS[3] meta     KEYS[6]  prioritized KEYS[9] events   KEYS[12] completed

  ARGV[1] JSON {base (Q), id (scheduler id), producerId (id of the iteration that was fetched),
          nextMillis (cron only), opts (the new iteration's opts table, short keys)}
  ARGV[2] now (ms)

  Returns the new iteration's id, or 0 when the scheduler is gone, 1 when producerId is not the
  current iteration (its successor exists already), 2 when the next id is already taken, 3 when
  the next run would fall after the scheduler's endDate, 4 when the scheduler is paused (OxMQ's
  `oxmq.pausedAt`, see pauseJobScheduler: resuming schedules the next run).
]]
--- @include "schedulerJobs"
--- @include "getMaxEvents"

local s = cjson.decode(ARGV[1])
local now = tonumber(ARGV[2])
local k = queueKeysFromKeys(s.base, 2)
local repeatKey = KEYS[1]
local schedulerId = s.id
local schedulerKey = repeatKey .. ":" .. schedulerId

local current = tonumber(redis.call("ZSCORE", repeatKey, schedulerId))
if not current then
  return 0
end
local stored = redis.call("HMGET", schedulerKey, "name", "data", "every", "offset", "endDate",
  "oxmq.pausedAt")
if not stored[1] then
  return 0
end
if stored[6] then
  return 4
end
if s.producerId ~= schedulerIterationId(schedulerId, current) then
  return 1
end

local repeatOpts = type(s.opts["repeat"]) == "table" and s.opts["repeat"] or {}
local every = tonumber(stored[3]) or tonumber(repeatOpts["every"])
local millis
if every then
  millis = nextEverySlot(current, every, now, tonumber(stored[4]) or tonumber(repeatOpts["offset"]))
else
  millis = tonumber(s.nextMillis)
  if not millis then
    return 0
  end
  millis = math.floor(millis)
end

local endDate = tonumber(stored[5])
if endDate and millis > endDate then
  return 3
end

local nextId = schedulerIterationId(schedulerId, millis)
if redis.call("EXISTS", k.base .. nextId) == 1 then
  redis.call("XADD", k.events, "MAXLEN", "~", getMaxEvents(k.meta), "*", "event", "duplicated",
    "jobId", nextId)
  return 2
end

redis.call("ZADD", repeatKey, millis, schedulerId)
redis.call("HINCRBY", schedulerKey, "ic", 1)
addSchedulerIteration(k, schedulerId, millis, stored[1], stored[2] or "{}", s.opts, now)
return nextId
