--[[
  Adds one job: stores its hash and enqueues it as delayed, prioritized or waiting.

  KEYS[1] wait          KEYS[4] delayed       KEYS[7] marker
  KEYS[2] meta          KEYS[5] prioritized   KEYS[8] events
  KEYS[3] id            KEYS[6] pc            KEYS[9] active

  ARGV[1] Q (queue key prefix, with trailing colon)
  ARGV[2] custom job id, or "" for an automatic id
  ARGV[3] name
  ARGV[4] timestamp (ms)
  ARGV[5] data (JSON text)
  ARGV[6] opts (JSON text, bullmq short-key encoding)
  ARGV[7] delay (ms)
  ARGV[8] priority
  ARGV[9] "1" to push LIFO (front of the wait list)
  ARGV[10] JSON array of extra hash fields [k1, v1, k2, v2, ...] (e.g. traceparent), or "[]"

  Returns {jobId, 0} for a new job, {existingJobId, 1} when the custom id already exists.
]]
--- @include "getMaxEvents"
--- @include "isPausedOrMaxed"
--- @include "enqueueReadyJob"

local Q = ARGV[1]
local customId = ARGV[2]
local name = ARGV[3]
local timestamp = tonumber(ARGV[4])
local delay = tonumber(ARGV[7])
local priority = tonumber(ARGV[8])

-- The counter moves on every add, custom ids and duplicates included, as bullmq's does.
local counter = redis.call("INCR", KEYS[3])
local maxEvents = getMaxEvents(KEYS[2])

local jobId = customId
if jobId == "" then
  jobId = tostring(counter)
elseif redis.call("EXISTS", Q .. jobId) == 1 then
  redis.call("XADD", KEYS[8], "MAXLEN", "~", maxEvents, "*", "event", "duplicated", "jobId", jobId)
  return {jobId, 1}
end

local jobKey = Q .. jobId
redis.call("HSET", jobKey, "name", name, "data", ARGV[5], "opts", ARGV[6], "timestamp", timestamp,
  "delay", delay, "priority", priority)
local extra = cjson.decode(ARGV[10])
if #extra > 0 then
  redis.call("HSET", jobKey, unpack(extra))
end
redis.call("XADD", KEYS[8], "*", "event", "added", "jobId", jobId, "name", name)

if delay > 0 then
  local dueTs = timestamp + delay
  redis.call("ZADD", KEYS[4], delayedScore(KEYS[4], dueTs), jobId)
  redis.call("XADD", KEYS[8], "MAXLEN", "~", maxEvents, "*", "event", "delayed", "jobId", jobId, "delay", dueTs)
  signalNextDelayed(KEYS[7], KEYS[4])
else
  local pushCmd = "LPUSH"
  if ARGV[9] == "1" then
    pushCmd = "RPUSH"
  end
  enqueueReadyJob(KEYS[1], KEYS[5], KEYS[6], KEYS[7], jobId, priority, pushCmd, isPausedOrMaxed(KEYS[2], KEYS[9]))
  redis.call("XADD", KEYS[8], "MAXLEN", "~", maxEvents, "*", "event", "waiting", "jobId", jobId)
end

return {jobId, 0}
