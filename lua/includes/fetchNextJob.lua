--- @include "isPausedOrMaxed"
--- @include "markers"
--- @include "promoteDueDelayedJobs"
--- @include "groups"
--- @include "startJob"
-- Hands the next runnable job to a worker, or explains why there is none.
-- Returns {jobHashFlat, jobId, 0, 0}, {0, 0, rateLimitTtlMs, 0}, {0, 0, 0, nextWakeTs},
-- {0, 0, 0, 0, 1} (paused or at its global concurrency) or {0, 0, 0, 0} (nothing at all).
-- nextWakeTs is the due time of the earliest delayed job (grouped or not) or, if sooner, when a
-- rate-limited group may start a job again.
-- k: table of keys {wait, active, prioritized, events, limiter, delayed, meta, pc, marker}
-- w: worker table {token, lockDuration, limitMax, limitDuration, name}
-- batch (BatchWorker fetches, see fetchJobBatch): nil, or {fits = function(jobId), later = bool}.
--   `fits` is asked before a job is taken and a job that does not fit ends the batch, so the
--   byte budget never takes a job out of its place in line; `later` (every job after the
--   batch's first) skips what one fetch per batch does: promoting due delayed jobs. The batch
--   table also keeps the meta fields read by its first fetch. A batch fetch never writes the
--   wake-up marker here; fetchJobBatch writes it once.

-- Most grouped jobs found in the plain wait list (put there by a bullmq script, e.g. bullmq's
-- stalled checker) that one fetch returns to their groups.
local MAX_REGROUPED = 10

-- A field of a flat HGETALL reply, or nil.
local function flatField(flat, field)
  for i = 1, #flat, 2 do
    if flat[i] == field then
      return flat[i + 1]
    end
  end
  return nil
end

-- Pops the next ungrouped job (wait list, then prioritized) into active, and returns its id,
-- false (the batch is not full) and its hash as read (one HGETALL serves the group check and
-- the reply). A grouped job found there goes back to the front of its group's line instead.
local function takeUngroupedJob(k, Q, fits, batch)
  for _ = 1, MAX_REGROUPED do
    if fits then
      local nextId = redis.call("LINDEX", k.wait, -1)
      if nextId == false then
        nextId = redis.call("ZRANGE", k.prioritized, 0, 0)[1]
      end
      if nextId and string.sub(nextId, 1, 2) ~= "0:" and not fits(nextId) then
        return nil, true
      end
    end
    local jobId = redis.call("RPOPLPUSH", k.wait, k.active)
    -- Entries starting with "0:" are markers left by bullmq 4 / early 5; they are not jobs.
    while jobId and string.sub(jobId, 1, 2) == "0:" do
      redis.call("LREM", k.active, 1, jobId)
      jobId = redis.call("RPOPLPUSH", k.wait, k.active)
    end
    if not jobId then
      local popped = redis.call("ZPOPMIN", k.prioritized)
      if not popped[1] then
        redis.call("DEL", k.pc)
        return nil
      end
      jobId = popped[1]
      redis.call("LPUSH", k.active, jobId)
    end
    local flat = redis.call("HGETALL", Q .. jobId)
    local gid = flatField(flat, "gid")
    if not gid then
      return jobId, false, flat
    end
    redis.call("LREM", k.active, 1, jobId)
    pushGroupedJob(Q, gid, jobId, "RPUSH")
    if batch then
      batch.noGroups = nil
    end
  end
  return nil
end

-- Grouped jobs at the tail of the plain wait list (next in line there) go back to the front of
-- their groups' lines before anything is chosen, so they keep their place in their group.
local function regroupStrays(k, Q)
  for _ = 1, MAX_REGROUPED do
    local tail = redis.call("LINDEX", k.wait, -1)
    if not tail then
      return
    end
    local gid = redis.call("HGET", Q .. tail, "gid")
    if not gid then
      return
    end
    redis.call("RPOP", k.wait)
    pushGroupedJob(Q, gid, tail, "RPUSH")
  end
end

local function fetchNextJob(k, Q, now, w, batch)
  -- A batch reads meta once: nothing else runs while this script does.
  local meta = (batch and batch.meta) or redis.call("HMGET", k.meta, "max", "duration", "paused", "concurrency")
  if batch then
    batch.meta = meta
  end
  local pausedOrMaxed = isPausedOrMaxedFrom(meta[3], meta[4], k.active)
  if not (batch and batch.later) then
    promoteDueDelayedJobs(k.delayed, k.wait, k.prioritized, k.pc, k.events, k.marker, Q, now, pausedOrMaxed)
  end
  local fits = batch and batch.fits

  -- Queue-wide max wins over the worker's; the worker's window duration wins over the queue's.
  local maxJobs = tonumber(meta[1]) or w.limitMax
  local duration = w.limitDuration or tonumber(meta[2])
  -- Two rules, both must pass. bullmq's fixed window (the `limiter` counter, shared with bullmq
  -- workers) and OxMQ's sliding log of start times (`limiter:log`), which keeps any `duration`
  -- long stretch to `max` starts where a fixed window allows 2·max across its edge.
  local startLog = k.limiter .. ":log"
  if maxJobs then
    local used = tonumber(redis.call("GET", k.limiter) or "0")
    if used >= maxJobs then
      local ttl = redis.call("PTTL", k.limiter)
      if ttl == 0 then
        redis.call("DEL", k.limiter)
      elseif ttl > 0 then
        return {0, 0, ttl, 0}
      end
    end
    if duration then
      redis.call("ZREMRANGEBYSCORE", startLog, "-inf", "(" .. (now - duration))
      if redis.call("ZCARD", startLog) >= maxJobs then
        local oldest = redis.call("ZRANGE", startLog, 0, 0, "WITHSCORES")
        return {0, 0, math.max(1, tonumber(oldest[2]) + duration - now + 1), 0}
      end
    end
  end

  if pausedOrMaxed then
    -- The 5th field says the queue holds its jobs back: a bullmq worker freeing a slot of a
    -- global concurrency writes no marker, so an idle worker must poll rather than wait for one.
    return {0, 0, 0, 0, 1}
  end

  -- Grouped and ungrouped work take turns while both have some, so neither starves the other;
  -- when the preferred side has nothing to hand out, the other side is tried. Without groups in
  -- the ring no turn is taken, and a stray grouped job in wait is regrouped when popped.
  local ringKey = Q .. "groups"
  local groupsFirst = false
  -- A batch asks once: the ring only gains a group here when a stray is regrouped, which clears
  -- the flag (see takeUngroupedJob).
  local mayHaveGroups = not (batch and batch.noGroups)
  if mayHaveGroups and redis.call("LLEN", ringKey) > 0 then
    regroupStrays(k, Q)
    if redis.call("LLEN", k.wait) > 0 or redis.call("ZCARD", k.prioritized) > 0 then
      groupsFirst = redis.call("INCR", Q .. "groups:turn") % 2 == 0
    end
  elseif batch then
    batch.noGroups = true
  end
  local jobId, gid, reopenTs, full, flat = nil, nil, 0, false, nil
  if groupsFirst then
    jobId, gid, full = takeGroupedJob(Q, now, fits)
    if not jobId then
      reopenTs = gid
      gid = nil
    end
  end
  if not jobId and not full then
    jobId, full, flat = takeUngroupedJob(k, Q, fits, batch)
  end
  if not jobId and not groupsFirst and not full then
    jobId, gid, full = takeGroupedJob(Q, now, fits)
    if not jobId then
      reopenTs = gid
      gid = nil
    end
  end
  if full then
    return {0, 0, 0, 0}
  end
  if not jobId then
    local wakeTs = nextDelayedDueTs(k.delayed)
    if reopenTs > 0 then
      -- A rate-limited group reopens: wake this worker, and any blocked one, by then. This is a
      -- wake-up time, not a rate limit: the queue's other work is not held back meanwhile.
      if wakeTs == 0 or reopenTs < wakeTs then
        wakeTs = reopenTs
      end
      signalWakeBy(k.marker, reopenTs)
    end
    return {0, 0, 0, wakeTs}
  end

  -- The hash is read before this fetch's writes (the reply gets them applied to the copy): it
  -- answers the checks below and gives attemptsStarted, so one HSET writes all of the start.
  if not flat then
    flat = redis.call("HGETALL", Q .. jobId)
  end
  local at = startFieldPositions(flat)
  local hasDeferredFailure = at.defa ~= nil
  if maxJobs and not hasDeferredFailure then
    -- Fixed window: the first start in a window opens it for `duration` ms.
    if redis.call("INCR", k.limiter) == 1 and duration then
      redis.call("PEXPIRE", k.limiter, math.floor(math.abs(duration)))
    end
    if duration then
      redis.call("ZADD", startLog, now, now .. ":" .. jobId)
      redis.call("PEXPIRE", startLog, math.floor(math.abs(duration)) + 1)
    end
  end
  startJob(k, Q, jobId, flat, at, w, string.format("%.0f", now))
  -- The marker this worker consumed may have stood for more jobs: let the next idle worker try.
  if not batch then
    redis.call("ZADD", k.marker, "0", "0")
  end
  return {flat, jobId, 0, 0}
end
