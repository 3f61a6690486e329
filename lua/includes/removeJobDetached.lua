--- @include "deleteJobKeys"
--- @include "removeJobWithDedup"
--- @include "parentOfJob"
--- @include "getMaxEvents"
--- @include "isPausedOrMaxed"
--- @include "markers"
--- @include "groups"
-- Removing a job that is a flow child: the job leaves its parent's pending dependencies first.
-- A parent left with no pending dependency while it waits for children is either released to
-- the front of its queue's wait list (its group's line for a grouped parent; ignoring its priority and delay, as bullmq's removal does)
-- or, in "hard" mode (drain, clean, obliterate) when it lives in the same queue as the removed
-- job, removed as well, with the same rule applied to its own parent.
-- A released parent is always announced (`waiting`, prev=waiting-children) on its queue's
-- events and woken with a marker unless that queue is paused or maxed. bullmq 6.7.0 skips the
-- event when releasing a cross-queue parent in hard mode; emitting it keeps QueueEvents
-- listeners of the parent queue informed and bullmq readers accept it.
-- Parent keys come from the job hash (`parentKey`, `parent` JSON), not from KEYS: on a cluster
-- every queue of a flow must share one hash slot (a shared hash-tagged prefix).

local function releaseParentToWait(parentBase, parentId)
  local gid = redis.call("HGET", parentBase .. parentId, "gid")
  if gid then
    pushGroupedJob(parentBase, gid, parentId, "RPUSH")
  else
    redis.call("RPUSH", parentBase .. "wait", parentId)
  end
  signalJobsReady(parentBase .. "marker",
    isPausedOrMaxed(parentBase .. "meta", parentBase .. "active"))
  redis.call("XADD", parentBase .. "events", "MAXLEN", "~", getMaxEvents(parentBase .. "meta"),
    "*", "event", "waiting", "jobId", parentId, "prev", "waiting-children")
end

-- Takes the job (Q .. jobId, not yet deleted) out of its parent's pending dependencies. Returns
-- the parent's base and id when that parent must be hard-removed by the caller, else nil (no
-- parent, still pending children, not waiting for children, or released to wait).
-- known: the job's {parentKey, parent} fields when the caller already read them.
local function detachFromParent(Q, jobId, hard, known)
  local jobKey = Q .. jobId
  local fields = known or redis.call("HMGET", jobKey, "parentKey", "parent")
  local parentKey = fields[1]
  if not parentKey then
    return nil
  end
  local dependenciesKey = parentKey .. ":dependencies"
  if redis.call("SREM", dependenciesKey, jobKey) == 0
      or redis.call("SCARD", dependenciesKey) > 0 then
    return nil
  end
  local parentBase, parentId = parentOfJob(parentKey, fields[2])
  if not parentBase or redis.call("EXISTS", parentKey) == 0
      or redis.call("ZREM", parentBase .. "waiting-children", parentId) == 0 then
    return nil
  end
  if hard and parentBase == Q then
    return parentBase, parentId
  end
  releaseParentToWait(parentBase, parentId)
  return nil
end

-- Detaches the job from its parent, then deletes it with its deduplication key (when owned).
-- hard: true for drain, clean and obliterate; false for removeJob.
local function removeJobDetached(Q, jobId, hard)
  local base, id = Q, jobId
  while base do
    local parentBase, parentId = detachFromParent(base, id, hard)
    removeJobWithDedup(base, id)
    base, id = parentBase, parentId
  end
end

-- For removeOnComplete / removeOnFail: detaches the job from its parent (never hard), then
-- deletes its keys; deduplication keys are left alone, as bullmq's finished-job trimming does.
local function deleteFinishedJobDetached(Q, jobId, known)
  detachFromParent(Q, jobId, false, known)
  deleteJobKeys(Q .. jobId)
end
