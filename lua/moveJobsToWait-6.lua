--[[
  Queue.retryJobs (failed | completed) and Queue.promoteJobs (delayed): moves up to ARGV[2] jobs
  with score <= ARGV[3] to the back of the wait list. Priority is ignored (as bullmq does) and the
  `delay` field is left as it is. Grouped jobs go to the back of their group's line; promoting
  (delayed) also takes Q group-delayed once Q delayed is empty. Finished jobs lose finishedOn, processedOn and their result.
  A retried child of a live parent becomes one of its pending dependencies again
  (includes/returnChildToParent.lua); a parent that was already released is not moved back.

  KEYS[1] state (its sorted set)  KEYS[2] wait  KEYS[3] meta  KEYS[4] active  KEYS[5] marker
  KEYS[6] events

  ARGV[1] Q  ARGV[2] max jobs moved by this call  ARGV[3] max score ("+inf" for all)
  ARGV[4] state: "failed" | "completed" | "delayed"

  Returns 1 when more jobs may remain (the caller repeats), else 0.
]]
--- @include "getMaxEvents"
--- @include "isPausedOrMaxed"
--- @include "markers"
--- @include "batchedCall"
--- @include "returnChildToParent"
--- @include "groups"

local Q = ARGV[1]
local count = tonumber(ARGV[2])
local state = ARGV[4]
local setKey = KEYS[1]
local ids = redis.call("ZRANGEBYSCORE", setKey, "-inf", ARGV[3], "LIMIT", 0, count)
if #ids == 0 and state == "delayed" then
  setKey = Q .. "group-delayed"
  ids = redis.call("ZRANGEBYSCORE", setKey, "-inf", ARGV[3], "LIMIT", 0, count)
end
if #ids == 0 then
  return 0
end

local maxEvents = getMaxEvents(KEYS[3])
local resultField = nil
if state == "failed" then
  resultField = "failedReason"
elseif state == "completed" then
  resultField = "returnvalue"
end
local plain = {}
for _, jobId in ipairs(ids) do
  local gid = redis.call("HGET", Q .. jobId, "gid")
  if gid then
    pushGroupedJob(Q, gid, jobId, "LPUSH")
  else
    plain[#plain + 1] = jobId
  end
  if resultField then
    redis.call("HDEL", Q .. jobId, "finishedOn", "processedOn", resultField)
    returnChildToParent(Q .. jobId, state)
  end
  redis.call("XADD", KEYS[6], "MAXLEN", "~", maxEvents, "*", "event", "waiting", "jobId", jobId,
    "prev", state)
end
batchedCall("ZREM", setKey, ids)
batchedCall("LPUSH", KEYS[2], plain)
signalJobsReady(KEYS[5], isPausedOrMaxed(KEYS[3], KEYS[4]))

if #ids < count then
  -- Q delayed is done; grouped delayed jobs come next.
  if setKey == KEYS[1] and state == "delayed" and redis.call("ZCARD", Q .. "group-delayed") > 0 then
    return 1
  end
  return 0
end
return 1
