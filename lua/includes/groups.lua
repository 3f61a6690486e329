--- @include "isPausedOrMaxed"
--- @include "markers"
--- @include "scores"
--- @include "listSearch"
-- Tenant groups (OxMQ only: bullmq has no groups). Every key hangs off the queue base Q:
--   Q group:<gid>:wait     list   the group's ready jobs: LPUSH = back of its line, RPUSH = front,
--                                 the fetch pops the tail
--   Q groups               list   ring of the group ids that have ready jobs, each at most once
--                                 (in the ring <=> its wait list is not empty); the fetch rotates it
--   Q group:<gid>:active   set    the group's active job ids (they are in Q active too)
--   Q group:<gid>:meta     hash   paused, concurrency, max, duration
--   Q group:<gid>:limiter  string fixed-window start counter; `:limiter:log` zset of start times
--   Q group-delayed        zset   delayed grouped jobs, scored like Q delayed
--   Q groups:known         zset   every group id ever used, all scores 0 (lexicographic paging)
--   Q groups:turn          string counter that alternates grouped and ungrouped fetches
-- Waiting and delayed grouped jobs never sit in Q wait, Q prioritized or Q delayed, so a bullmq
-- worker (which knows none of these keys) never takes one.

local function groupKey(Q, gid, suffix)
  return Q .. "group:" .. gid .. ":" .. suffix
end

-- The queue base (with trailing colon) of a key named Q .. suffix.
local function baseOfKey(key, suffix)
  return string.sub(key, 1, #key - #suffix)
end

local function registerGroup(Q, gid)
  redis.call("ZADD", Q .. "groups:known", 0, gid)
end

-- Puts a ready grouped job in its group's line; a group whose line was empty joins the back of
-- the ring (it waits one full turn, like a new job waits behind those already in line).
local function pushGroupedJob(Q, gid, jobId, pushCmd)
  if redis.call(pushCmd, groupKey(Q, gid, "wait"), jobId) == 1 then
    redis.call("LPUSH", Q .. "groups", gid)
  end
end

-- A group whose line is empty leaves the ring.
local function dropGroupIfIdle(Q, gid)
  if redis.call("LLEN", groupKey(Q, gid, "wait")) == 0 then
    redis.call("LREM", Q .. "groups", 0, gid)
  end
end

local function isGroupPaused(Q, gid)
  return redis.call("HEXISTS", groupKey(Q, gid, "meta"), "paused") == 1
end

-- Queue-wide defaults from Q meta (group.concurrency, group.max, group.duration).
local function groupDefaults(Q)
  local d = redis.call("HMGET", Q .. "meta", "group.concurrency", "group.max", "group.duration")
  return {concurrency = tonumber(d[1]), max = tonumber(d[2]), duration = tonumber(d[3])}
end

-- paused, concurrency, max, duration of a group: its own meta wins over the defaults; the rate
-- limit is taken as a pair (the group's own max/duration, else the defaults' pair).
local function groupSettings(Q, gid, defaults)
  local m = redis.call("HMGET", groupKey(Q, gid, "meta"), "paused", "concurrency", "max", "duration")
  local max, duration = tonumber(m[3]), tonumber(m[4])
  if not (max and duration) then
    max, duration = defaults.max, defaults.duration
  end
  return m[1] ~= false, tonumber(m[2]) or defaults.concurrency, max, duration
end

-- Active jobs of the group. When the group looks full, ids that left Q active behind our back
-- (moved by a bullmq worker or script that knows nothing of groups) are pruned first: an id
-- without a lock that is no longer in Q active. Bounded by the set's size (about the concurrency).
local function groupActiveCount(Q, gid, concurrency)
  local setKey = groupKey(Q, gid, "active")
  local count = redis.call("SCARD", setKey)
  if count < concurrency then
    return count
  end
  for _, id in ipairs(redis.call("SMEMBERS", setKey)) do
    if redis.call("EXISTS", Q .. id .. ":lock") == 0 and not redis.call("LPOS", Q .. "active", id) then
      redis.call("SREM", setKey, id)
      count = count - 1
    end
  end
  return count
end

-- 0 when the group's rate limit lets one more job start now, else the ms until it does. Two
-- rules, as for the queue: the fixed window (counter with PEXPIRE) and the sliding log of starts.
local function groupRateLimitWait(Q, gid, max, duration, now)
  local limiterKey = groupKey(Q, gid, "limiter")
  local used = tonumber(redis.call("GET", limiterKey) or "0")
  if used >= max then
    local ttl = redis.call("PTTL", limiterKey)
    if ttl > 0 then
      return ttl
    end
    redis.call("DEL", limiterKey) -- a counter without expiry would block the group for good
  end
  local logKey = limiterKey .. ":log"
  redis.call("ZREMRANGEBYSCORE", logKey, "-inf", "(" .. (now - duration))
  if redis.call("ZCARD", logKey) >= max then
    local oldest = redis.call("ZRANGE", logKey, 0, 0, "WITHSCORES")
    return math.max(1, tonumber(oldest[2]) + duration - now + 1)
  end
  return 0
end

local function countGroupStart(Q, gid, jobId, duration, now)
  local limiterKey = groupKey(Q, gid, "limiter")
  local window = math.floor(math.abs(duration))
  if redis.call("INCR", limiterKey) == 1 then
    redis.call("PEXPIRE", limiterKey, window)
  end
  local logKey = limiterKey .. ":log"
  redis.call("ZADD", logKey, now, now .. ":" .. jobId)
  redis.call("PEXPIRE", logKey, window + 1)
end

-- Most groups one fetch looks at before giving up.
local GROUP_CANDIDATES = 50

-- Takes the next job of the next eligible group of the ring and moves it to Q active (head).
-- Groups that are paused, at their concurrency or rate limited are skipped and stay in the ring.
-- Returns jobId, gid; or nil, reopenTs (when a skipped rate-limited group lets a job start
-- again, ms; 0 when no candidate was rate limited).
-- `fits` (batch fetches only): asked before a job is taken; when the group's next job does not
-- fit the batch's byte budget, returns nil, 0, true (the batch is full).
local function takeGroupedJob(Q, now, fits)
  local ringKey = Q .. "groups"
  local candidates = math.min(redis.call("LLEN", ringKey), GROUP_CANDIDATES)
  local reopen = 0
  if candidates == 0 then
    return nil, reopen
  end
  local defaults = groupDefaults(Q)
  for _ = 1, candidates do
    local gid = redis.call("RPOPLPUSH", ringKey, ringKey)
    if not gid then
      break
    end
    local waitKey = groupKey(Q, gid, "wait")
    if redis.call("LLEN", waitKey) == 0 then
      redis.call("LREM", ringKey, 0, gid)
    else
      local paused, concurrency, max, duration = groupSettings(Q, gid, defaults)
      local ready = not paused
      if ready and concurrency then
        ready = groupActiveCount(Q, gid, concurrency) < concurrency
      end
      if ready and max and duration then
        local wait = groupRateLimitWait(Q, gid, max, duration, now)
        if wait > 0 then
          ready = false
          if reopen == 0 or now + wait < reopen then
            reopen = now + wait
          end
        end
      end
      if ready and fits and not fits(redis.call("LINDEX", waitKey, -1)) then
        return nil, 0, true
      end
      if ready then
        local jobId = redis.call("RPOP", waitKey)
        dropGroupIfIdle(Q, gid)
        if redis.call("EXISTS", Q .. jobId) == 1 then
          redis.call("LPUSH", Q .. "active", jobId)
          redis.call("SADD", groupKey(Q, gid, "active"), jobId)
          if max and duration and redis.call("HEXISTS", Q .. jobId, "defa") == 0 then
            countGroupStart(Q, gid, jobId, duration, now)
          end
          return jobId, gid
        end
        -- An id whose hash is gone (deleted behind our back) is dropped; try the next group.
      end
    end
  end
  return nil, reopen
end

-- A grouped job leaves Q active: it frees its group slot. When that group has ready jobs and was
-- at its concurrency, idle workers are woken (nothing else would tell them the slot is free).
local function leaveGroupActive(Q, gid, jobId)
  local setKey = groupKey(Q, gid, "active")
  local before = redis.call("SCARD", setKey)
  if redis.call("SREM", setKey, jobId) == 0 then
    return
  end
  if redis.call("LLEN", groupKey(Q, gid, "wait")) == 0 or isGroupPaused(Q, gid) then
    return
  end
  local _, concurrency = groupSettings(Q, gid, groupDefaults(Q))
  if concurrency and before >= concurrency then
    signalJobsReady(Q .. "marker", isPausedOrMaxed(Q .. "meta", Q .. "active"))
  end
end

-- Same, for a script that only knows the job: reads the job's group (nil for ungrouped jobs).
local function leaveGroupActiveOf(Q, jobId)
  local gid = redis.call("HGET", Q .. jobId, "gid")
  if gid then
    leaveGroupActive(Q, gid, jobId)
  end
  return gid
end

-- Delays a grouped job: it is due at dueTs (ms) in Q group-delayed, where the fetch promotes it.
local function delayGroupedJob(Q, jobId, dueTs)
  local key = Q .. "group-delayed"
  redis.call("ZADD", key, delayedScore(key, dueTs), jobId)
  signalNextDelayed(Q .. "marker", Q .. "delayed")
end

-- Moves due grouped delayed jobs (at most `limit`) to the back of their groups' lines.
-- Returns how many moved.
local function promoteDueGroupedJobs(Q, now, limit)
  local key = Q .. "group-delayed"
  local due = redis.call("ZRANGEBYSCORE", key, "0", dueScoreBound(now), "LIMIT", "0", limit)
  for _, jobId in ipairs(due) do
    redis.call("ZREM", key, jobId)
    local jobKey = Q .. jobId
    local gid = redis.call("HGET", jobKey, "gid")
    if gid then
      pushGroupedJob(Q, gid, jobId, "LPUSH")
      redis.call("XADD", Q .. "events", "*", "event", "waiting", "jobId", jobId, "prev", "delayed")
      redis.call("HSET", jobKey, "delay", 0)
    end
  end
  return #due
end

-- Removes a waiting grouped job from its group's line (from the end nearest to it, see
-- includes/listSearch.lua); true if it was there.
local function removeFromGroupLine(Q, gid, jobId)
  if removeIdFromList(groupKey(Q, gid, "wait"), jobId) then
    dropGroupIfIdle(Q, gid)
    return true
  end
  return false
end

-- Every key of one group except its entry in Q groups:known.
local function deleteGroupKeys(Q, gid)
  redis.call("DEL", groupKey(Q, gid, "wait"), groupKey(Q, gid, "active"), groupKey(Q, gid, "meta"),
    groupKey(Q, gid, "limiter"), groupKey(Q, gid, "limiter:log"))
end
