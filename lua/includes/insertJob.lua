--- @include "getMaxEvents"
--- @include "isPausedOrMaxed"
--- @include "enqueueReadyJob"
--- @include "parentOfJob"
--- @include "releaseParent"
--- @include "deduplicateJob"
--- @include "groups"
-- Stores a new job and puts it where it belongs; shared by addJob (one job) and addFlow (a tree).
--
-- k: the job's queue keys {base, wait, meta, id, delayed, prioritized, pc, marker, events,
--    active, waitingChildren, completed}
-- j: {customId ("" for an automatic id), name, timestamp, data, opts (JSON texts), delay,
--    priority, lifo, fields (flat array of extra hash fields), parentKey?, parent? (JSON text of
--    {id, queueKey, fpof?, cpof?, idof?, rdof?}), asParent? (has children: waits for them),
--    deferParentRelease? (a flow releases parents itself once every node is in),
--    dedup? ({id, ttl?, extend?, replace?, reschedule?}: see deduplicateJob),
--    groupId? (tenant group: the job gets hash field `gid` and waits in its group, see groups),
--    parentWritten? (the parent was written earlier in this call: it exists, no need to look)}
-- memo (optional): a table kept across the inserts of one call into the same queue. Adding
--    jobs changes neither the queue's meta nor its active list, so the events cap and the
--    paused-or-maxed state are read once per call, not once per job.
-- Returns jobId, outcome (false: stored; "duplicate": the custom id existed; "deduplicated": an
-- owner of the deduplication window was returned instead); or nil, errorCode (-5 parent
-- missing, -7 the job already has another parent).

-- A job that already exists joins the requested parent unless another live parent owns it.
local function attachExistingToParent(k, jobId, jobKey, j, now)
  local current = redis.call("HGET", jobKey, "parentKey")
  if current and current ~= j.parentKey and redis.call("EXISTS", current) == 1 then
    return -7
  end
  if redis.call("ZSCORE", k.completed, jobId) then
    redis.call("HSET", j.parentKey .. ":processed", jobKey, redis.call("HGET", jobKey, "returnvalue") or "null")
    if not j.deferParentRelease then
      local parentBase, parentId = parentOfJob(j.parentKey, j.parent)
      if parentBase then
        releaseParentIfDone(j.parentKey, parentBase, parentId, now)
      end
    end
  else
    redis.call("SADD", j.parentKey .. ":dependencies", jobKey)
  end
  redis.call("HSET", jobKey, "parentKey", j.parentKey, "parent", j.parent)
  return 0
end

local function insertJob(k, j, now, memo)
  memo = memo or {}
  if j.parentKey and not j.parentWritten and redis.call("EXISTS", j.parentKey) == 0 then
    return nil, -5
  end
  -- The counter moves on every add, custom ids and duplicates included, as bullmq's does.
  local counter = redis.call("INCR", k.id)
  memo.maxEvents = memo.maxEvents or getMaxEvents(k.meta)
  local maxEvents = memo.maxEvents

  local jobId = j.customId
  if jobId == "" then
    jobId = tostring(counter)
  end
  local jobKey = k.base .. jobId
  if j.customId ~= "" and redis.call("EXISTS", jobKey) == 1 then
    if j.parentKey then
      local attached = attachExistingToParent(k, jobId, jobKey, j, now)
      if attached < 0 then
        if j.deferParentRelease then
          redis.call("HSET", j.parentKey, "flowAttachmentFailed", 1)
        end
        return nil, attached
      end
    end
    redis.call("XADD", k.events, "MAXLEN", "~", maxEvents, "*", "event", "duplicated", "jobId", jobId)
    return jobId, "duplicate"
  end

  if j.dedup then
    local owner = deduplicateJob(k, j.dedup, jobId, j.timestamp, j.delay, maxEvents)
    if owner then
      return owner, "deduplicated"
    end
    table.insert(j.fields, "deid")
    table.insert(j.fields, j.dedup.id)
  end
  if j.groupId then
    table.insert(j.fields, "gid")
    table.insert(j.fields, j.groupId)
    registerGroup(k.base, j.groupId)
  end

  redis.call("HSET", jobKey, "name", j.name, "data", j.data, "opts", j.opts, "timestamp", j.timestamp,
    "delay", j.delay, "priority", j.priority)
  if j.parentKey then
    redis.call("HSET", jobKey, "parentKey", j.parentKey, "parent", j.parent)
  end
  if #j.fields > 0 then
    redis.call("HSET", jobKey, unpack(j.fields))
  end
  redis.call("XADD", k.events, "*", "event", "added", "jobId", jobId, "name", j.name)

  if j.asParent then
    redis.call("ZADD", k.waitingChildren, j.timestamp, jobId)
    redis.call("XADD", k.events, "MAXLEN", "~", maxEvents, "*", "event", "waiting-children", "jobId", jobId)
  elseif j.delay > 0 then
    local dueTs = j.timestamp + j.delay
    if j.groupId then
      redis.call("ZADD", k.base .. "group-delayed", delayedScore(k.base .. "group-delayed", dueTs), jobId)
    else
      redis.call("ZADD", k.delayed, delayedScore(k.delayed, dueTs), jobId)
    end
    redis.call("XADD", k.events, "MAXLEN", "~", maxEvents, "*", "event", "delayed", "jobId", jobId, "delay", dueTs)
    signalNextDelayed(k.marker, k.delayed)
  else
    local pushCmd = "LPUSH"
    if j.lifo then
      pushCmd = "RPUSH"
    end
    if memo.pausedOrMaxed == nil then
      memo.pausedOrMaxed = isPausedOrMaxed(k.meta, k.active)
    end
    enqueueReadyJob(k.wait, k.prioritized, k.pc, k.marker, jobId, j.priority, pushCmd,
      memo.pausedOrMaxed, j.groupId or false)
    redis.call("XADD", k.events, "MAXLEN", "~", maxEvents, "*", "event", "waiting", "jobId", jobId)
  end

  if j.parentKey then
    redis.call("SADD", j.parentKey .. ":dependencies", jobKey)
  end
  return jobId, false
end

-- The key table of a queue from a script's KEYS, in the order lua/addJobBatch-11.lua's header
-- lists them (wait, meta, id, delayed, prioritized, pc, marker, events, active,
-- waiting-children, completed), starting at KEYS[first].
local function queueKeysFromKeys(base, first)
  local names = {"wait", "meta", "id", "delayed", "prioritized", "pc", "marker", "events", "active",
    "waitingChildren", "completed"}
  local k = {base = base}
  for i, name in ipairs(names) do
    k[name] = KEYS[first + i - 1]
  end
  return k
end

-- The key table of a queue, from its base key (with the trailing colon).
local function queueKeysFromBase(base)
  return {base = base, wait = base .. "wait", meta = base .. "meta", id = base .. "id",
    delayed = base .. "delayed", prioritized = base .. "prioritized", pc = base .. "pc",
    marker = base .. "marker", events = base .. "events", active = base .. "active",
    waitingChildren = base .. "waiting-children", completed = base .. "completed"}
end
