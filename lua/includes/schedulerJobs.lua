--- @include "insertJob"
--- @include "removeJobWithDedup"
--- @include "schedulerSlots"
--- @include "groups"
--- @include "listSearch"
-- Iteration jobs of job schedulers: ordinary jobs with id "repeat:<schedulerId>:<millis>" and
-- the hash field `rjk` = scheduler id.

-- Whether a job that is not near either end of a long wait list is inside it: its hash exists,
-- it is not grouped, and it is in none of the states outside the wait list that are not
-- checked already (every job is in exactly one state). Bounded, unlike a scan of the list.
local function isDeepInWait(Q, jobId)
  if redis.call("EXISTS", Q .. jobId) == 0 or redis.call("HEXISTS", Q .. jobId, "gid") == 1 then
    return false
  end
  return not (redis.call("ZSCORE", Q .. "completed", jobId) or redis.call("ZSCORE", Q .. "failed", jobId)
    or redis.call("ZSCORE", Q .. "waiting-children", jobId) or redis.call("LPOS", Q .. "active", jobId)
    or redis.call("ZSCORE", Q .. "delayed", jobId) or redis.call("ZSCORE", Q .. "prioritized", jobId))
end

-- Where a not-yet-started iteration sits: "delayed", "prioritized", "wait", or nil when it is
-- active, finished or gone (then it is not replaceable). A grouped iteration's "delayed" is
-- Q group-delayed and its "wait" its group's line.
local function pendingIterationState(k, jobId)
  if redis.call("ZSCORE", k.delayed, jobId) or redis.call("ZSCORE", k.base .. "group-delayed", jobId) then
    return "delayed"
  end
  if redis.call("ZSCORE", k.prioritized, jobId) then
    return "prioritized"
  end
  local where = findNearListEnds(k.wait, jobId)
  if where == "head" or where == "tail" then
    return "wait"
  end
  if where == "middle" and isDeepInWait(k.base, jobId) then
    return "wait"
  end
  local gid = redis.call("HGET", k.base .. jobId, "gid")
  if gid and redis.call("LPOS", groupKey(k.base, gid, "wait"), jobId) then
    return "wait"
  end
  return nil
end

-- Takes a pending iteration out of its state and deletes its keys.
local function removePendingIteration(k, jobId, state)
  if state == "wait" then
    removeIdFromList(k.wait, jobId)
    local gid = redis.call("HGET", k.base .. jobId, "gid")
    if gid then
      removeFromGroupLine(k.base, gid, jobId)
    end
  else
    redis.call("ZREM", k[state], jobId)
  end
  removeJobWithDedup(k.base, jobId)
end

-- Stores and enqueues the iteration at `millis` (INCRs the id counter, emits added and
-- waiting/delayed). `opts` is the decoded iteration opts table; its jobId and delay are set here.
-- Returns the job id and its delay.
local function addSchedulerIteration(k, schedulerId, millis, name, data, opts, now)
  local jobId = schedulerIterationId(schedulerId, millis)
  local delay = millis - now
  if delay < 0 then
    delay = 0
  end
  opts["jobId"] = jobId
  opts["delay"] = delay
  local fields = {"rjk", schedulerId}
  if type(opts["de"]) == "table" and opts["de"]["id"] then
    fields[3] = "deid"
    fields[4] = opts["de"]["id"]
  end
  local groupId = nil
  if type(opts["group"]) == "table" and type(opts["group"]["id"]) == "string" then
    groupId = opts["group"]["id"]
  end
  insertJob(k, {customId = jobId, name = name, timestamp = now, data = data,
    opts = cjson.encode(opts), delay = delay, priority = tonumber(opts["priority"]) or 0,
    lifo = opts["lifo"] == true, fields = fields, groupId = groupId}, now)
  return jobId, delay
end
