--- @include "getMaxEvents"
--- @include "isPausedOrMaxed"
--- @include "markers"
--- @include "scores"
-- What insertJob does for a plain job (no parent, children, deduplication or group; whole ms),
-- from positional arguments instead of a JSON job table: decoding that table cost Redis more
-- than the rest of a plain add (docs/benchmarks.md, scenario add). Shared by addJob (one job)
-- and addJobBatch (many). The job's arguments are ARGV[first .. first + count - 1]:
--   name, timestamp (ms), data (JSON text), opts (JSON text), delay ("0"), priority ("0"),
--   custom id (""), "1" for lifo ("0"), then extra hash fields as flat name/value pairs;
--   trailing defaults may be left out when no extra field follows.
-- meta: readAddMeta's reply, read once per call (adds change neither meta nor active).
-- Returns the new job's id, or {existingJobId, 1} when the custom id already exists.

-- The events cap, paused and concurrency of a queue, in one read.
local function readAddMeta(metaKey)
  local meta = redis.call("HMGET", metaKey, "opts.maxLenEvents", "paused", "concurrency")
  meta[1] = meta[1] or getMaxEvents(metaKey)
  return meta
end

local function insertPlainJob(Q, meta, first, count)
  local name, timestamp, data, opts = ARGV[first], ARGV[first + 1], ARGV[first + 2], ARGV[first + 3]
  local delay = count >= 5 and ARGV[first + 4] or "0"
  local priority = count >= 6 and ARGV[first + 5] or "0"
  local customId = count >= 7 and ARGV[first + 6] or ""
  local lifo = count >= 8 and ARGV[first + 7] == "1"
  local maxEvents, eventsKey = meta[1], Q .. "events"
  -- The counter moves on every add, custom ids and duplicates included, as bullmq's does.
  local counter = redis.call("INCR", Q .. "id")

  local jobId = customId
  if jobId == "" then
    jobId = tostring(counter)
  end
  local jobKey = Q .. jobId
  if customId ~= "" and redis.call("EXISTS", jobKey) == 1 then
    redis.call("XADD", eventsKey, "MAXLEN", "~", maxEvents, "*", "event", "duplicated", "jobId", jobId)
    return {jobId, 1}
  end

  if count > 8 then
    local fields = {"name", name, "data", data, "opts", opts, "timestamp", timestamp,
      "delay", delay, "priority", priority}
    for i = first + 8, first + count - 1 do
      fields[#fields + 1] = ARGV[i]
    end
    redis.call("HSET", jobKey, unpack(fields))
  else
    redis.call("HSET", jobKey, "name", name, "data", data, "opts", opts, "timestamp", timestamp,
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
  elseif lifo then
    redis.call("RPUSH", Q .. "wait", jobId)
  else
    redis.call("LPUSH", Q .. "wait", jobId)
  end
  signalJobsReady(markerKey, isPausedOrMaxedFrom(meta[2], meta[3], Q .. "active"))
  redis.call("XADD", eventsKey, "MAXLEN", "~", maxEvents, "*", "event", "waiting", "jobId", jobId)
  return jobId
end
