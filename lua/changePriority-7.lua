--[[
  Job.changePriority. A job waiting to run (wait list or prioritized) is re-queued under the new
  priority: 0 goes to the wait list (front with lifo), > 0 to prioritized, where lifo puts it ahead
  of every job of that priority. Jobs in other states only get the field changed.
  Grouped jobs have no priority: 0 moves a waiting one to the back of its group's line (front
  with lifo); any other priority is refused with an error reply and nothing changes.

  KEYS[1] wait  KEYS[2] meta  KEYS[3] prioritized  KEYS[4] active  KEYS[5] pc  KEYS[6] marker
  KEYS[7] job hash

  ARGV[1] priority  ARGV[2] jobId  ARGV[3] "1" for lifo

  Returns 0, or -1 job missing (error reply "priority is not supported for grouped jobs").
]]
--- @include "isPausedOrMaxed"
--- @include "markers"
--- @include "scores"
--- @include "groups"
--- @include "listSearch"

local priority = tonumber(ARGV[1])
local jobId = ARGV[2]
local lifo = ARGV[3] == "1"
local jobKey = KEYS[7]
if redis.call("EXISTS", jobKey) == 0 then
  return -1
end

local gid = redis.call("HGET", jobKey, "gid")
if gid then
  if priority ~= 0 then
    return redis.error_reply("ERR priority is not supported for grouped jobs")
  end
  local Q = baseOfKey(KEYS[1], "wait")
  local line = groupKey(Q, gid, "wait")
  if removeIdFromList(line, jobId) then
    -- The line is not left empty, so the group keeps its place in the ring.
    redis.call(lifo and "RPUSH" or "LPUSH", line, jobId)
    if not isGroupPaused(Q, gid) then
      signalJobsReady(KEYS[6], isPausedOrMaxed(KEYS[2], KEYS[4]))
    end
  end
  redis.call("HSET", jobKey, "priority", 0)
  return 0
end

if redis.call("ZREM", KEYS[3], jobId) == 1 or removeIdFromList(KEYS[1], jobId) then
  local pausedOrMaxed = isPausedOrMaxed(KEYS[2], KEYS[4])
  if priority == 0 then
    redis.call(lifo and "RPUSH" or "LPUSH", KEYS[1], jobId)
    signalJobsReady(KEYS[6], pausedOrMaxed)
  elseif lifo then
    -- Counter 0: ahead of every job of the same priority.
    redis.call("ZADD", KEYS[3], priority * 4294967296, jobId)
  else
    redis.call("ZADD", KEYS[3], priorityScore(KEYS[5], priority), jobId)
    signalJobsReady(KEYS[6], pausedOrMaxed)
  end
end
redis.call("HSET", jobKey, "priority", priority)
return 0
