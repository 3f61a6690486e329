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
  Grouped jobs are cleaned with their state: `wait` goes on into every group's line and `delayed`
  into Q group-delayed once the state's own key is done (see GROUP_PHASE below for the cursor).

  KEYS[1] state (Q completed | failed | delayed | prioritized | wait | paused | active)
  KEYS[2] events  KEYS[3] repeat

  ARGV[1] Q  ARGV[2] cutoff ts (now - grace)  ARGV[3] max entries examined by this call (>= 1)
  ARGV[4] state  ARGV[5] cursor (0 on the first call)  ARGV[6] "1" to emit `cleaned` even for 0

  Returns {removedIds, cursor, examined, done}: done is 1 when nothing is left to examine.
]]
--- @include "removeJobDetached"
--- @include "schedulerIteration"
--- @include "batchedCall"
--- @include "groups"

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

-- Scans one list from its oldest end (the tail), skipping the `skip` entries earlier calls kept,
-- examining at most `limit`. Removed entries are blanked in place (indices stay valid during the
-- scan) and dropped with one LREM from the tail. Returns the new skip count and the entries read.
local function scanList(key, skip, limit)
  local ids = redis.call("LRANGE", key, -(skip + limit), -(skip + 1))
  local n = #ids
  local before = #removed + #dropped
  for j = n, 1, -1 do
    local jobId = ids[j]
    if isCleanable(jobId) then
      redis.call("LSET", key, -(skip + n - j + 1), "")
      removeJob(jobId)
    end
  end
  local blanks = #removed + #dropped - before
  if blanks > 0 then
    redis.call("LREM", key, -blanks, "")
  end
  return skip + n - blanks, n
end

-- Scans a sorted set from its lowest score, skipping `skip` kept entries. Returns as scanList.
local function scanSortedSet(key, skip, limit)
  local ids = redis.call("ZRANGE", key, skip, skip + limit - 1)
  local gone = {}
  for _, jobId in ipairs(ids) do
    if isCleanable(jobId) then
      removeJob(jobId)
      gone[#gone + 1] = jobId
    else
      skip = skip + 1
    end
  end
  batchedCall("ZREM", key, gone)
  return skip, #ids
end

-- Grouped jobs of a state live apart: waiting ones in their groups' lines (state wait), delayed
-- ones in Q group-delayed (state delayed). They are cleaned after the state's own key, in the
-- same bounded calls. A cursor >= GROUP_PHASE means that phase: cursor - GROUP_PHASE is the kept
-- count of Q group-delayed, or, for wait, g * GROUP_STRIDE + kept count of the g-th group of
-- Q groups:known (in its lexicographic order, so groups added meanwhile shift the walk back and
-- a group is looked at again rather than skipped).
local GROUP_PHASE = 2 ^ 50
local GROUP_STRIDE = 2 ^ 26
local hasGroupPhase = state == "wait" or state == "delayed"

local examined = 0
if cursor >= GROUP_PHASE then
  local offset = cursor - GROUP_PHASE
  if state == "delayed" then
    local n
    offset, n = scanSortedSet(Q .. "group-delayed", offset, budget)
    examined = n
  else
    local knownKey = Q .. "groups:known"
    local g = math.floor(offset / GROUP_STRIDE)
    local skip = offset - g * GROUP_STRIDE
    -- Groups without waiting jobs cost a look each: at most `budget` looks per call.
    local looks = 0
    local finished = false
    while examined < budget do
      if looks >= budget then
        break
      end
      looks = looks + 1
      local gid = redis.call("ZRANGE", knownKey, g, g)[1]
      if not gid then
        finished = true
        break
      end
      local line = groupKey(Q, gid, "wait")
      local n
      skip, n = scanList(line, skip, budget - examined)
      examined = examined + n
      dropGroupIfIdle(Q, gid)
      if examined < budget then
        -- this group's line is done
        g = g + 1
        skip = 0
      end
    end
    offset = g * GROUP_STRIDE + skip
    if not finished and examined < budget then
      done = 0
    end
  end
  cursor = GROUP_PHASE + offset
elseif state == "completed" or state == "failed" then
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
  -- Lists: newest at the head, so the scan walks from the tail.
  cursor, examined = scanList(setKey, cursor, budget)
end
if examined >= budget then
  done = 0
elseif hasGroupPhase and cursor < GROUP_PHASE then
  -- The state's own key is done: its grouped jobs come next, if there are any.
  local groupsLeft
  if state == "delayed" then
    groupsLeft = redis.call("ZCARD", Q .. "group-delayed") > 0
  else
    groupsLeft = redis.call("EXISTS", Q .. "groups") == 1
  end
  if groupsLeft then
    cursor = GROUP_PHASE
    done = 0
  end
end

if #removed > 0 or ARGV[6] == "1" then
  redis.call("XADD", KEYS[2], "*", "event", "cleaned", "count", #removed)
end
return {removed, cursor, examined, done}
