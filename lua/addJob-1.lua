--[[
  Adds one job: stores its hash and enqueues it as delayed, prioritized, waiting, or (a parent
  given children elsewhere) waiting-children. A job with a parent joins its dependencies. A
  grouped job (`groupId`) waits in its group's line or in Q group-delayed instead.

  KEYS[1] meta (routes the call; the queue's other keys are built from its base Q, the meta
          key without "meta")

  Two argument forms (engine/backend/redis/add-job.ts builds both):
  - a plain job (no parent, children, deduplication or group; whole ms): four to eight
    arguments, trailing defaults left out unless extra fields follow:
    ARGV[1] name   ARGV[3] data (JSON text)  ARGV[5] delay (ms, "0")  ARGV[7] custom id ("")
    ARGV[2] timestamp (ms)   ARGV[4] opts (JSON text)   ARGV[6] priority ("0")
    ARGV[8] "1" for lifo ("0")   ARGV[9..] extra hash fields, flat name/value pairs
  - any other job: exactly two arguments:
    ARGV[1] the JSON job table of includes/insertJob.lua   ARGV[2] now (ms)

  Returns the new job's id; {existingJobId, 1} when the custom id already exists,
  {ownerJobId, 2} when deduplication kept an existing job instead, or a negative error code:
  -5 parent missing, -7 the job already belongs to another parent.

  Cost (docs/benchmarks.md, scenario add): Redis pays for every argument and creates a script's
  local functions again on every call, and the plain add is the hot path. So it takes few
  arguments, and only the few fragments it needs are defined at the top; insertJob and all it
  includes live inside addFromJobTable, created only when such a job comes.
]]
--- @include "getMaxEvents"
--- @include "isPausedOrMaxed"
--- @include "markers"
--- @include "scores"

local Q = string.sub(KEYS[1], 1, -5)

local function addFromJobTable(jobJson, now)
--- @include "insertJob"
  local job = cjson.decode(jobJson)
  local jobId, outcome = insertJob(queueKeysFromBase(Q), job, now)
  if not jobId then
    return outcome
  end
  if outcome == "duplicate" then
    return {jobId, 1}
  elseif outcome == "deduplicated" then
    return {jobId, 2}
  end
  return jobId
end

if #ARGV == 2 then
  return addFromJobTable(ARGV[1], tonumber(ARGV[2]))
end

-- A plain job: what insertJob does for a job without parent, children, deduplication or group,
-- with meta's three fields read in one HMGET.
local name, timestamp = ARGV[1], ARGV[2]
local delay, priority, customId = ARGV[5] or "0", ARGV[6] or "0", ARGV[7] or ""
local metaKey, eventsKey = KEYS[1], Q .. "events"
-- The counter moves on every add, custom ids and duplicates included, as bullmq's does.
local counter = redis.call("INCR", Q .. "id")
local meta = redis.call("HMGET", metaKey, "opts.maxLenEvents", "paused", "concurrency")
local maxEvents = meta[1] or getMaxEvents(metaKey)

local jobId = customId
if jobId == "" then
  jobId = tostring(counter)
end
local jobKey = Q .. jobId
if customId ~= "" and redis.call("EXISTS", jobKey) == 1 then
  redis.call("XADD", eventsKey, "MAXLEN", "~", maxEvents, "*", "event", "duplicated", "jobId", jobId)
  return {jobId, 1}
end

if #ARGV > 8 then
  local fields = {"name", name, "data", ARGV[3], "opts", ARGV[4], "timestamp", timestamp,
    "delay", delay, "priority", priority}
  for i = 9, #ARGV do
    fields[#fields + 1] = ARGV[i]
  end
  redis.call("HSET", jobKey, unpack(fields))
else
  redis.call("HSET", jobKey, "name", name, "data", ARGV[3], "opts", ARGV[4], "timestamp", timestamp,
    "delay", delay, "priority", priority)
end
redis.call("XADD", eventsKey, "*", "event", "added", "jobId", jobId, "name", name)

local markerKey = Q .. "marker"
if delay ~= "0" then
  local delayedKey = Q .. "delayed"
  local dueTs = tonumber(timestamp) + tonumber(delay)
  redis.call("ZADD", delayedKey, delayedScore(delayedKey, dueTs), jobId)
  redis.call("XADD", eventsKey, "MAXLEN", "~", maxEvents, "*", "event", "delayed", "jobId", jobId, "delay", dueTs)
  signalNextDelayed(markerKey, delayedKey)
  return jobId
end
if priority ~= "0" then
  redis.call("ZADD", Q .. "prioritized", priorityScore(Q .. "pc", tonumber(priority)), jobId)
elseif ARGV[8] == "1" then
  redis.call("RPUSH", Q .. "wait", jobId)
else
  redis.call("LPUSH", Q .. "wait", jobId)
end
signalJobsReady(markerKey, isPausedOrMaxedFrom(meta[2], meta[3], Q .. "active"))
redis.call("XADD", eventsKey, "MAXLEN", "~", maxEvents, "*", "event", "waiting", "jobId", jobId)
return jobId
