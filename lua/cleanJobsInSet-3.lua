--[[
  Queue.clean for one state: removes jobs created/finished at or before a cutoff. As in bullmq,
  a limit bounds the entries examined: finished sets (completed, failed) are read by score
  (finishedOn <= cutoff), so every entry read is removed; other states are scanned from their
  oldest end and only the entries whose timestamp qualifies are removed. One call examines at
  most ARGV[3] entries, starting after the ARGV[5] entries earlier calls examined and kept (the
  caller passes the returned cursor back). Locked active jobs and the pending iteration of every
  job scheduler are kept. Removal deletes the job keys and the job's deduplication key (when it
  points at the job), and detaches a flow child from its parent in "hard" mode: a parent left
  without pending children is removed too when it is in this queue, or released to the front of
  its own queue's wait list otherwise (see removeJobDetached).

  KEYS[1] the state's key (Q completed | failed | delayed | prioritized | wait | paused | active)
  KEYS[2] events  KEYS[3] repeat

  ARGV[1] Q  ARGV[2] cutoff ts (now - grace)  ARGV[3] max entries examined by this call (>= 1)
  ARGV[4] state  ARGV[5] cursor (0 on the first call)  ARGV[6] "1" to emit `cleaned` even for 0

  Returns {removedIds, cursor, examined, done}: done is 1 when nothing is left to examine.
]]
--- @include "removeJobDetached"
--- @include "schedulerIteration"
--- @include "batchedCall"

local Q = ARGV[1]
local cutoff = tonumber(ARGV[2])
local budget = tonumber(ARGV[3])
local state = ARGV[4]
local cursor = tonumber(ARGV[5])
local setKey = KEYS[1]
local removed = {}
local done = 1

-- The timestamp a job is judged by: the first of these fields present on its hash.
local judgedFields = {
  wait = {"finishedOn", "processedOn", "timestamp"},
  paused = {"finishedOn", "processedOn", "timestamp"},
  active = {"finishedOn", "processedOn", "timestamp"},
  delayed = {"processedOn", "timestamp"},
  prioritized = {"timestamp"},
}

local function isCleanable(jobId)
  if string.sub(jobId, 1, 2) == "0:" then
    return true
  end
  if isCurrentSchedulerIteration(KEYS[3], jobId) then
    return false
  end
  local jobKey = Q .. jobId
  if state == "active" and redis.call("EXISTS", jobKey .. ":lock") == 1 then
    return false
  end
  local values = redis.call("HMGET", jobKey, unpack(judgedFields[state]))
  for _, value in ipairs(values) do
    if value then
      return tonumber(value) <= cutoff
    end
  end
  -- No timestamp at all: a dangling id, always removed.
  return true
end

-- Legacy "0:" markers are dropped too, but they are not jobs: not reported, not counted.
local dropped = {}
local function removeJob(jobId)
  if string.sub(jobId, 1, 2) == "0:" then
    dropped[#dropped + 1] = jobId
  else
    removeJobDetached(Q, jobId, true)
    removed[#removed + 1] = jobId
  end
end

local examined = 0
if state == "completed" or state == "failed" then
  local ids = redis.call("ZRANGEBYSCORE", setKey, 0, cutoff, "LIMIT", 0, budget)
  for _, jobId in ipairs(ids) do
    removeJob(jobId)
  end
  batchedCall("ZREM", setKey, ids)
  examined = #ids
elseif state == "delayed" or state == "prioritized" then
  local ids = redis.call("ZRANGE", setKey, cursor, cursor + budget - 1)
  for _, jobId in ipairs(ids) do
    if isCleanable(jobId) then
      removeJob(jobId)
    else
      cursor = cursor + 1
    end
  end
  batchedCall("ZREM", setKey, removed)
  batchedCall("ZREM", setKey, dropped)
  examined = #ids
else
  -- Lists: newest at the head, so the scan walks from the tail. Removed entries are blanked in
  -- place (indices stay valid during the scan) and dropped with one LREM from the tail.
  local ids = redis.call("LRANGE", setKey, -(cursor + budget), -(cursor + 1))
  local n = #ids
  for j = n, 1, -1 do
    local jobId = ids[j]
    if isCleanable(jobId) then
      redis.call("LSET", setKey, -(cursor + n - j + 1), "")
      removeJob(jobId)
    end
  end
  local blanks = #removed + #dropped
  cursor = cursor + n - blanks
  if blanks > 0 then
    redis.call("LREM", setKey, -blanks, "")
  end
  examined = n
end
if examined >= budget then
  done = 0
end

if #removed > 0 or ARGV[6] == "1" then
  redis.call("XADD", KEYS[2], "*", "event", "cleaned", "count", #removed)
end
return {removed, cursor, examined, done}
