--[[
  Creates or replaces a job scheduler (Queue.upsertJobScheduler): rewrites `Q repeat:<id>`
  (keeping its iteration count `ic`), sets its score in `Q repeat`, and makes sure exactly one
  iteration is pending. A still pending iteration (delayed, prioritized or waiting) is replaced;
  for an unchanged every-schedule the replacement keeps its slot. An iteration that already
  started is left alone and the new one takes the next slot.

  KEYS[1] repeat   KEYS[4]  id         KEYS[7]  pc       KEYS[10] active
  KEYS[2] wait     KEYS[5]  delayed    KEYS[8]  marker   KEYS[11] waiting-children
  KEYS[3] meta     KEYS[6]  prioritized KEYS[9] events   KEYS[12] completed

  ARGV[1] JSON {base (Q), id (scheduler id), nextMillis (cron: computed by the client; absent
          for every), scheduler {name, every?, pattern?, tz?, limit?, startDate?, endDate?,
          offset?}, data (template data JSON text), templateOpts (table, short keys),
          jobOpts (the iteration's opts table, short keys; jobId and delay are set here),
          require? ("running": the scheduler must exist and not be paused; "paused": it must
          exist and be paused; OxMQ's edit and resume, so neither brings back a scheduler that
          was removed meanwhile)}
  ARGV[2] now (ms)

  The rewrite drops OxMQ's pause fields (`oxmq.pausedAt`, `oxmq.nextCount`): any upsert, ours or
  bullmq's, leaves the scheduler running.

  Returns {jobId, delay}, or -10 (cron: the iteration's id is taken by another job), -11
  (every: 32 consecutive slots are taken), -12 (require given: no such scheduler) or -13
  (require given: the scheduler is paused, or not paused, against it).
]]
--- @include "schedulerJobs"

local s = cjson.decode(ARGV[1])
local now = tonumber(ARGV[2])
local k = queueKeysFromKeys(s.base, 2)
local repeatKey = KEYS[1]
local schedulerId = s.id
local schedulerKey = repeatKey .. ":" .. schedulerId
local def = s.scheduler

local prevMillis = tonumber(redis.call("ZSCORE", repeatKey, schedulerId))
if s.require then
  if not prevMillis or redis.call("EXISTS", schedulerKey) == 0 then
    return -12
  end
  local paused = redis.call("HEXISTS", schedulerKey, "oxmq.pausedAt") == 1
  if paused ~= (s.require == "paused") then
    return -13
  end
end
local stored = redis.call("HMGET", schedulerKey, "every", "offset", "startDate", "ic")
local pendingState
if prevMillis then
  pendingState = pendingIterationState(k, schedulerIterationId(schedulerId, prevMillis))
end

local every = tonumber(def.every)
local millis, offset
if every then
  local givenOffset = tonumber(def.offset)
  local storedOffset = tonumber(stored[2])
  -- Same every, offset and start: the schedule keeps its grid; otherwise it starts afresh.
  local sameTiming = prevMillis and tonumber(stored[1]) == every
    and (givenOffset == nil or givenOffset == storedOffset)
    and tonumber(stored[3]) == tonumber(def.startDate)
  if sameTiming and pendingState then
    millis, offset = prevMillis, storedOffset or (prevMillis % every)
  elseif sameTiming then
    millis, offset = nextEverySlot(prevMillis, every, now, storedOffset)
  else
    millis, offset = firstEverySlot(every, now, givenOffset, tonumber(def.startDate))
  end
else
  millis = math.floor(tonumber(s.nextMillis))
  offset = 0
end

-- The replaced pending iteration frees its own id; any other existing job blocks the slot.
local function slotTaken(ms)
  if pendingState and ms == prevMillis then
    return false
  end
  return redis.call("EXISTS", k.base .. schedulerIterationId(schedulerId, ms)) == 1
end
if slotTaken(millis) then
  if not every then
    return -10
  end
  local scans = 0
  repeat
    millis = millis + every
    scans = scans + 1
  until not slotTaken(millis) or scans >= 32
  if slotTaken(millis) then
    return -11
  end
end

if pendingState then
  removePendingIteration(k, schedulerIterationId(schedulerId, prevMillis), pendingState)
end

-- The hash is rewritten whole, fields in bullmq's order; `ic` survives.
local fields = {"name", def.name}
for _, field in ipairs({"tz", "limit", "pattern", "startDate", "endDate", "every"}) do
  if def[field] ~= nil then
    fields[#fields + 1] = field
    fields[#fields + 1] = def[field]
  end
end
fields[#fields + 1] = "offset"
fields[#fields + 1] = offset
local templateOpts = cjson.encode(s.templateOpts or {})
if templateOpts ~= "{}" then
  fields[#fields + 1] = "opts"
  fields[#fields + 1] = templateOpts
end
if s.data and s.data ~= "{}" then
  fields[#fields + 1] = "data"
  fields[#fields + 1] = s.data
end
fields[#fields + 1] = "ic"
fields[#fields + 1] = stored[4] or 1
redis.call("DEL", schedulerKey)
redis.call("HSET", schedulerKey, unpack(fields))
redis.call("ZADD", repeatKey, millis, schedulerId)

local jobId, delay = addSchedulerIteration(k, schedulerId, millis, def.name, s.data or "{}",
  s.jobOpts, now)
return {jobId, delay}
