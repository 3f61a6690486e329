--[[
  Completes or fails an active job, optionally handing the same worker its next job.

  KEYS[1] wait      KEYS[5] stalled   KEYS[9]  pc
  KEYS[2] active    KEYS[6] limiter   KEYS[10] marker
  KEYS[3] prioritized KEYS[7] delayed KEYS[11] completed | failed (target set)
  KEYS[4] events    KEYS[8] meta      KEYS[12] job hash   KEYS[13] metrics:<target>

  ARGV[1] jobId           ARGV[2] now (becomes finishedOn)
  ARGV[3] "returnvalue" | "failedReason"        ARGV[4] its value
  ARGV[5] "completed" | "failed"                ARGV[6] fetch next "1" | "0"
  ARGV[7] Q               ARGV[8] token
  ARGV[9] JSON keep rule {count, age?, limit?} (count -1 keeps everything, 0 deletes the job;
          a deleted or trimmed job leaves its parent's dependencies, maybe releasing the parent)
  ARGV[10] JSON worker table for fetch-next {token, lockDuration, limitMax?, limitDuration?, name?}
  ARGV[11] max metrics data points, or "" when metrics are off
  ARGV[12] JSON array of fields to write first [k1, v1, ...] (failures: failedReason, stacktrace)
  ARGV[13] attempts allowed (opts.attempts, 0 when absent)

  A grouped job (hash field `gid`) also leaves its group's active set.

  Returns 0, a next-job tuple (see fetchNextJob), or a negative error code:
  -1 job missing, -2 lock missing, -3 not active, -4 pending children, -6 lock owned by another
  token, -9 a child failed with failParentOnFailure.
]]
--- @include "getMaxEvents"
--- @include "leaveActive"
--- @include "trimFinishedJobs"
--- @include "collectMetrics"
--- @include "fetchNextJob"
--- @include "onChildFinished"
--- @include "groups"

local jobKey = KEYS[12]
local jobId = ARGV[1]
local now = tonumber(ARGV[2])
local target = ARGV[5]
local Q = ARGV[7]

if redis.call("EXISTS", jobKey) == 0 then
  return -1
end
if target == "completed" then
  if redis.call("SCARD", jobKey .. ":dependencies") ~= 0 then
    return -4
  end
  if redis.call("ZCARD", jobKey .. ":unsuccessful") ~= 0 then
    return -9
  end
end

local left = leaveActive(jobKey, KEYS[2], KEYS[5], jobId, ARGV[8], ARGV[12])
if left < 0 then
  return left
end
-- A grouped job frees its group slot (waking idle workers when the group was full).
leaveGroupActiveOf(Q, jobId)

local maxEvents = getMaxEvents(KEYS[8])
redis.call("XTRIM", KEYS[4], "MAXLEN", "~", maxEvents)

-- A simple (no TTL) deduplication window closes when its owner finishes.
local dedupId = redis.call("HGET", jobKey, "deid")
if dedupId then
  local dedupKey = Q .. "de:" .. dedupId
  if redis.call("PTTL", dedupKey) == -1 and redis.call("GET", dedupKey) == jobId then
    redis.call("DEL", dedupKey)
  end
end

-- Before the job may be deleted below: its parent needs its key, result and flags.
onChildFinished(jobKey, target, ARGV[4], now)

local attemptsMade = redis.call("HINCRBY", jobKey, "atm", 1)

local keep = cjson.decode(ARGV[9])
if keep.count == 0 then
  deleteFinishedJobDetached(Q, jobId)
else
  redis.call("ZADD", KEYS[11], now, jobId)
  redis.call("HSET", jobKey, ARGV[3], ARGV[4], "finishedOn", now)
  if target == "failed" then
    redis.call("HDEL", jobKey, "defa")
  end
  trimFinishedJobs(KEYS[11], Q, now, keep)
end

redis.call("XADD", KEYS[4], "*", "event", target, "jobId", jobId, ARGV[3], ARGV[4], "prev", "active")
if target == "failed" and attemptsMade >= tonumber(ARGV[13]) then
  redis.call("XADD", KEYS[4], "*", "event", "retries-exhausted", "jobId", jobId, "attemptsMade", attemptsMade)
end

if ARGV[11] ~= "" then
  collectMetrics(KEYS[13], KEYS[13] .. ":data", tonumber(ARGV[11]), now)
end

local result = nil
if ARGV[6] == "1" then
  local keys = {wait = KEYS[1], active = KEYS[2], prioritized = KEYS[3], events = KEYS[4],
    limiter = KEYS[6], delayed = KEYS[7], meta = KEYS[8], pc = KEYS[9], marker = KEYS[10]}
  result = fetchNextJob(keys, Q, now, cjson.decode(ARGV[10]))
end

local fetchedJob = result ~= nil and result[1] ~= 0
local ready = redis.call("LLEN", KEYS[1]) + redis.call("ZCARD", KEYS[3]) + redis.call("LLEN", Q .. "groups")
if not fetchedJob and ready == 0 and redis.call("LLEN", KEYS[2]) == 0 then
  redis.call("XADD", KEYS[4], "*", "event", "drained")
end
-- Under a global concurrency cap, adds write no marker while the queue is full: when a slot
-- frees and nobody here took it, wake an idle worker instead of leaving it to its drain delay.
if not fetchedJob and ready > 0 and redis.call("HEXISTS", KEYS[8], "concurrency") == 1
    and not isPausedOrMaxed(KEYS[8], KEYS[2]) then
  redis.call("ZADD", KEYS[10], 0, "0")
end

if result then
  return result
end
return 0
