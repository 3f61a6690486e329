// Generated from lua/ by scripts/generate-script-registry.ts: do not edit.
// After changing a file in lua/, run `npm run scripts:generate` and commit the result.
import { inlineIncludes } from './lua-includes';
import type { ScriptDefinition } from './script-definition';

/** The names of each script's KEYS, in order, as its header in lua/ gives them. */
export interface ScriptKeyNames {
  addFlow: readonly ['meta'];
  addJob: readonly ['meta'];
  addJobBatch: readonly [
    'wait',
    'meta',
    'id',
    'delayed',
    'prioritized',
    'pc',
    'marker',
    'events',
    'active',
    'waitingChildren',
    'completed',
  ];
  addJobScheduler: readonly [
    'repeat',
    'wait',
    'meta',
    'id',
    'delayed',
    'prioritized',
    'pc',
    'marker',
    'events',
    'active',
    'waitingChildren',
    'completed',
  ];
  addLog: readonly ['jobHash', 'jobLogs'];
  changeDelay: readonly ['delayed', 'meta', 'marker', 'events'];
  changePriority: readonly ['wait', 'meta', 'prioritized', 'active', 'pc', 'marker', 'jobHash'];
  cleanJobsInSet: readonly ['state', 'events', 'repeat'];
  commandWorker: readonly ['worker'];
  countGroupedJobs: readonly ['base'];
  drain: readonly ['wait', 'paused', 'prioritized', 'delayed', 'repeat', 'pc'];
  extendLocks: readonly ['stalled'];
  getDependencyPage: readonly ['record'];
  getGroups: readonly ['meta'];
  getJobState: readonly [
    'completed',
    'failed',
    'delayed',
    'prioritized',
    'active',
    'wait',
    'paused',
    'waitingChildren',
  ];
  getJobsInStates: readonly ['base'];
  holdLease: readonly ['lease', 'lastClaimedTurn'];
  moveJobFromActiveToWait: readonly [
    'active',
    'wait',
    'stalled',
    'meta',
    'limiter',
    'prioritized',
    'marker',
    'events',
    'jobHash',
  ];
  moveJobsToWait: readonly ['state', 'wait', 'meta', 'active', 'marker', 'events'];
  moveStalledJobsToWait: readonly [
    'stalled',
    'wait',
    'active',
    'stalledCheck',
    'meta',
    'marker',
    'events',
    'repeat',
  ];
  moveToActive: readonly [
    'wait',
    'active',
    'prioritized',
    'events',
    'limiter',
    'delayed',
    'meta',
    'pc',
    'marker',
  ];
  moveToActiveBatch: readonly [
    'wait',
    'active',
    'prioritized',
    'events',
    'limiter',
    'delayed',
    'meta',
    'pc',
    'marker',
  ];
  moveToDelayed: readonly ['marker', 'active', 'delayed', 'jobHash', 'events', 'meta', 'stalled'];
  moveToFinished: readonly [
    'wait',
    'active',
    'prioritized',
    'events',
    'stalled',
    'limiter',
    'delayed',
    'meta',
    'pc',
    'marker',
    'target',
    'jobHash',
    'metrics',
  ];
  moveToFinishedBatch: readonly [
    'wait',
    'active',
    'prioritized',
    'events',
    'stalled',
    'limiter',
    'delayed',
    'meta',
    'pc',
    'marker',
    'completed',
    'metricsCompleted',
  ];
  moveToWaitingChildren: readonly [
    'active',
    'waitingChildren',
    'jobHash',
    'jobDependencies',
    'jobUnsuccessful',
    'stalled',
    'events',
    'meta',
  ];
  obliterate: readonly [
    'meta',
    'active',
    'delayed',
    'repeat',
    'completed',
    'wait',
    'paused',
    'prioritized',
    'failed',
    'waitingChildren',
  ];
  pause: readonly ['meta', 'marker', 'events', 'wait', 'paused', 'prioritized', 'delayed'];
  pauseJobScheduler: readonly ['repeat', 'delayed', 'prioritized', 'wait', 'events', 'meta'];
  promote: readonly ['delayed', 'wait', 'meta', 'prioritized', 'active', 'pc', 'events', 'marker'];
  readJobWindow: readonly ['state', 'base'];
  readTogether: readonly ['route'];
  recordCancelOutcome: readonly ['events', 'meta'];
  recordHistory: readonly ['minuteHash', 'hourHash', 'index'];
  removeChildDependency: readonly ['childJobHash'];
  removeDeduplicationKey: readonly ['deduplication'];
  removeJob: readonly ['jobHash', 'repeat'];
  removeJobScheduler: readonly ['repeat', 'delayed', 'prioritized', 'wait', 'events', 'meta'];
  removeOrphanedJobs: readonly ['base'];
  repairDanglingId: readonly ['base'];
  repairMarkStalled: readonly ['jobHash', 'active', 'lock', 'stalled'];
  repairPlaceFinished: readonly ['base'];
  repairPriorityCounter: readonly ['prioritized', 'pc'];
  repairTrimEvents: readonly ['meta', 'events'];
  reprocessJob: readonly [
    'jobHash',
    'events',
    'state',
    'wait',
    'meta',
    'active',
    'marker',
    'prioritized',
    'pc',
  ];
  requestJobCancel: readonly [
    'active',
    'lock',
    'worker',
    'workerCancel',
    'workerWake',
    'jobHash',
    'events',
    'meta',
  ];
  retryJob: readonly [
    'active',
    'wait',
    'jobHash',
    'meta',
    'events',
    'delayed',
    'prioritized',
    'pc',
    'marker',
    'stalled',
  ];
  updateData: readonly ['jobHash'];
  updateGroup: readonly ['hash', 'meta', 'marker'];
  updateJobScheduler: readonly [
    'repeat',
    'wait',
    'meta',
    'id',
    'delayed',
    'prioritized',
    'pc',
    'marker',
    'events',
    'active',
    'waitingChildren',
    'completed',
  ];
  updateProgress: readonly ['jobHash', 'events', 'meta'];
  workerHeartbeat: readonly ['worker', 'workers', 'workerCancel'];
}

/** lua/includes/, each fragment once: the scripts below inline them as this module loads. */
const INCLUDES: Readonly<Record<string, string>> = {
  afterFinish: `--- @include "isPausedOrMaxed"
-- After a completion call that handed out no next job: announce \`drained\` when nothing is
-- left to run, and under a global concurrency cap wake an idle worker for the freed slot (adds
-- write no marker while the queue is full, so nobody else would tell it).
-- k: {wait, active, prioritized, events, meta, marker}
local function afterFinish(k, Q)
  local ready = redis.call("LLEN", k.wait) + redis.call("ZCARD", k.prioritized) + redis.call("LLEN", Q .. "groups")
  if ready == 0 and redis.call("LLEN", k.active) == 0 then
    redis.call("XADD", k.events, "*", "event", "drained")
  end
  if ready > 0 and redis.call("HEXISTS", k.meta, "concurrency") == 1
      and not isPausedOrMaxed(k.meta, k.active) then
    redis.call("ZADD", k.marker, "0", "0")
  end
end
`,
  batchedCall: `-- Runs a variadic command (ZREM, SADD, ...) on a key with many members, in slices small enough
-- for unpack's stack limit.
local function batchedCall(command, key, members)
  for from = 1, #members, 5000 do
    redis.call(command, key, unpack(members, from, math.min(from + 4999, #members)))
  end
end
`,
  collectMetrics: `--- @include "batchedCall"
-- Per-minute throughput in bullmq's layout: the hash keeps a running count and the count at the
-- last minute boundary; the list holds one number per minute, newest first.
-- count: jobs finished at \`now\` (1 when omitted); counting n at once leaves what n calls would.
local function collectMetrics(metricsKey, dataKey, maxDataPoints, now, count)
  count = count or 1
  local previous = redis.call("HINCRBY", metricsKey, "count", count) - count
  local last = redis.call("HMGET", metricsKey, "prevTS", "prevCount")
  if not last[1] then
    redis.call("HSET", metricsKey, "prevTS", now, "prevCount", 0)
    return
  end
  local minutes = math.floor(now / 60000) - math.floor(tonumber(last[1]) / 60000)
  if minutes > maxDataPoints then
    minutes = maxDataPoints
  end
  if minutes > 0 then
    -- LPUSH leaves its last argument at the head: the delta goes first, so the zeros of the
    -- minutes without finishes end up above it. In slices: unpack() refuses ~8000 values.
    local points = {previous - tonumber(last[2])}
    for _ = 2, minutes do
      table.insert(points, 0)
    end
    batchedCall("LPUSH", dataKey, points)
    redis.call("LTRIM", dataKey, 0, maxDataPoints - 1)
    redis.call("HSET", metricsKey, "prevCount", previous, "prevTS", now)
  end
end
`,
  deduplicateJob: `--- @include "deleteJobKeys"
--- @include "markers"
--- @include "scores"
-- Deduplication (bullmq's \`de\` option) for an incoming job \`newId\` of queue keys \`k\`.
-- The key \`Q de:<id>\` holds the id of the job that owns the window. Modes:
--   simple (no ttl): the window lasts until the owner finishes or is removed;
--   throttle (ttl): the window expires after ttl ms;
--   extend (with ttl): each duplicate restarts the ttl;
--   replace (debounce, usually with a delay): a duplicate replaces the owner while the owner is
--     still delayed (the newest data wins); once the owner left delayed the duplicate is dropped;
--   reschedule: a duplicate moves a still-delayed owner to its own due time.
-- Returns nil when the new job goes ahead (the key now names it), or the owner's id when the new
-- job is a duplicate and must not be stored.
local function deduplicateJob(k, de, newId, timestamp, delay, maxEvents)
  local dedupKey = k.base .. "de:" .. de.id
  local ttl = tonumber(de.ttl)
  local owner = redis.call("GET", dedupKey)
  -- A window without expiry whose owner vanished (e.g. deleted by hand) is stale.
  if owner and redis.call("PTTL", dedupKey) == -1 and redis.call("EXISTS", k.base .. owner) == 0 then
    redis.call("DEL", dedupKey, k.base .. "dn:" .. de.id)
    owner = nil
  end
  if not owner then
    if ttl and ttl > 0 then
      redis.call("SET", dedupKey, newId, "PX", ttl)
    else
      redis.call("SET", dedupKey, newId)
    end
    return nil
  end

  -- A grouped owner waits in Q group-delayed instead of Q delayed.
  local groupDelayed = k.base .. "group-delayed"
  if de.replace then
    if redis.call("ZREM", k.delayed, owner) == 1 or redis.call("ZREM", groupDelayed, owner) == 1 then
      deleteJobKeys(k.base .. owner)
      redis.call("XADD", k.events, "*", "event", "removed", "jobId", owner, "prev", "delayed")
      -- Roles as bullmq writes them here: jobId is the job that stays (the new one).
      redis.call("XADD", k.events, "MAXLEN", "~", maxEvents, "*", "event", "deduplicated", "jobId", newId,
        "deduplicationId", de.id, "deduplicatedJobId", owner)
      redis.call("DEL", k.base .. "dn:" .. de.id)
      if de.extend and ttl and ttl > 0 then
        redis.call("SET", dedupKey, newId, "PX", ttl)
      else
        redis.call("SET", dedupKey, newId, "KEEPTTL")
      end
      return nil
    end
    return owner
  end

  if de.extend and ttl and ttl > 0 then
    redis.call("SET", dedupKey, owner, "PX", ttl)
  end
  redis.call("XADD", k.events, "MAXLEN", "~", maxEvents, "*", "event", "deduplicated", "jobId", owner,
    "deduplicationId", de.id, "deduplicatedJobId", newId)
  local ownerDelayed = nil
  if de.reschedule then
    if redis.call("ZSCORE", k.delayed, owner) then
      ownerDelayed = k.delayed
    elseif redis.call("ZSCORE", groupDelayed, owner) then
      ownerDelayed = groupDelayed
    end
  end
  if ownerDelayed then
    local dueTs = timestamp + delay
    redis.call("HSET", k.base .. owner, "delay", delay)
    redis.call("ZADD", ownerDelayed, delayedScore(ownerDelayed, dueTs), owner)
    redis.call("XADD", k.events, "MAXLEN", "~", maxEvents, "*", "event", "delayed", "jobId", owner, "delay", dueTs)
    signalNextDelayed(k.marker, k.delayed)
  end
  return owner
end
`,
  deleteJobKeys: `-- Deletes a job hash and every key that hangs off it.
local function deleteJobKeys(jobKey)
  redis.call("DEL", jobKey, jobKey .. ":logs", jobKey .. ":dependencies", jobKey .. ":processed",
    jobKey .. ":failed", jobKey .. ":unsuccessful", jobKey .. ":lock")
end
`,
  enqueueReadyJob: `--- @include "markers"
--- @include "scores"
--- @include "groups"
-- Puts a job that is ready to run where workers look for it: a grouped job (hash field \`gid\`)
-- into its group's line, else the wait list for priority 0 (pushCmd LPUSH = back of the line,
-- RPUSH = front), else the prioritized set. waitKey is Q .. "wait".
-- knownGid: the job's group when the caller just wrote the hash (false: none); nil reads it.
local function enqueueReadyJob(waitKey, prioritizedKey, pcKey, markerKey, jobId, priority, pushCmd, pausedOrMaxed, knownGid)
  local Q = baseOfKey(waitKey, "wait")
  local gid = knownGid
  if gid == nil then
    gid = redis.call("HGET", Q .. jobId, "gid")
  end
  if gid then
    pushGroupedJob(Q, gid, jobId, pushCmd)
    if not isGroupPaused(Q, gid) then
      signalJobsReady(markerKey, pausedOrMaxed)
    end
    return
  end
  if priority > 0 then
    redis.call("ZADD", prioritizedKey, priorityScore(pcKey, priority), jobId)
  else
    redis.call(pushCmd, waitKey, jobId)
  end
  signalJobsReady(markerKey, pausedOrMaxed)
end
`,
  fetchJobBatch: `--- @include "fetchNextJob"
--- @include "takeWaitingRun"
-- Hands a BatchWorker up to \`batchSize\` jobs, each taken exactly as fetchNextJob takes one (rate
-- limits count every job, global and group concurrency hold, each job is locked with the
-- batch's token and announced \`active\`). The batch stops before the job whose data would bring
-- the sum of the batch's data sizes past \`maxBytes\`; the first job always comes, however big,
-- so an oversized job is never starved. maxBytes 0 means no byte budget.
-- Without a byte budget, the jobs at the tail of the wait list come first in one run when
-- nothing holds them back (takeWaitingRun); the per-job path fills the rest.
-- Returns {{jobHashFlat...}, {jobId...}, 0, 0}, or fetchNextJob's "no job" tuple
-- {0, 0, rateLimitTtl, nextWakeTs} when not even the first job could be taken.

local function dataSizeOfFlatHash(flat)
  return #(flatField(flat, "data") or "")
end

local function fetchJobBatch(k, Q, now, w, batchSize, maxBytes)
  local batch = {later = false}
  local hashes, ids = {}, {}
  if maxBytes == 0 then
    takeWaitingRun(k, Q, now, w, batch, batchSize, hashes, ids)
  end
  if #ids == 0 then
    local first = fetchNextJob(k, Q, now, w, batch)
    if first[1] == 0 then
      return first
    end
    hashes[1], ids[1] = first[1], first[2]
  end
  batch.later = true
  -- With a byte budget the run above is skipped: the batch so far is its first job.
  local used = maxBytes > 0 and dataSizeOfFlatHash(hashes[1]) or 0
  if maxBytes > 0 then
    batch.fits = function(jobId)
      return used + redis.call("HSTRLEN", Q .. jobId, "data") <= maxBytes
    end
  end
  while #ids < batchSize do
    local nextJob = fetchNextJob(k, Q, now, w, batch)
    if nextJob[1] == 0 then
      break
    end
    hashes[#hashes + 1] = nextJob[1]
    ids[#ids + 1] = nextJob[2]
    if maxBytes > 0 then
      used = used + dataSizeOfFlatHash(nextJob[1])
    end
  end
  -- The marker this worker consumed may have stood for more jobs: let the next idle worker try.
  redis.call("ZADD", k.marker, "0", "0")
  return {hashes, ids, 0, 0}
end
`,
  fetchNextJob: `--- @include "isPausedOrMaxed"
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
--   \`fits\` is asked before a job is taken and a job that does not fit ends the batch, so the
--   byte budget never takes a job out of its place in line; \`later\` (every job after the
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
  -- Two rules, both must pass. bullmq's fixed window (the \`limiter\` counter, shared with bullmq
  -- workers) and OxMQ's sliding log of start times (\`limiter:log\`), which keeps any \`duration\`
  -- long stretch to \`max\` starts where a fixed window allows 2·max across its edge.
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
    -- Fixed window: the first start in a window opens it for \`duration\` ms.
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
`,
  finishActiveJob: `--- @include "leaveActive"
--- @include "onChildFinished"
--- @include "collectMetrics"
--- @include "groups"
--- @include "removeJobDetached"
--- @include "intText"
-- The per-job part of finishing an active job (completed or failed for good), shared by
-- moveToFinished (one job) and moveToFinishedBatch (many): lock and state checks, the outcome
-- fields, leaving active (and its group), the deduplication window, the parent, attemptsMade,
-- the finished set (or deletion), the events and metrics. Trimming the finished set, the
-- events stream and the drained / marker checks are once per call, so the callers do them.
-- f: {jobId, token, now, target ("completed" | "failed"), field ("returnvalue" |
--     "failedReason"), value, fieldsJson, keepCount, attempts, metricsKey?, metricsMax?}
-- k: {active, stalled, events, finished}
-- batch (optional): a call finishing many jobs collects some writes to make them once for all
-- (see includes/finishJobsTogether.lua); nil writes everything here.
-- Returns 0 or a negative error code (see moveToFinished-13.lua).
local function finishActiveJob(k, Q, f, batch)
  local jobKey = Q .. f.jobId
  -- A missing job passes these two checks (empty keys) and is refused by leaveActive with -1.
  -- Empty sets do not exist in Redis: one EXISTS over both keys clears the usual case (a job
  -- that is no flow parent) in one command instead of two.
  if f.target == "completed" and not (batch and batch.noPendingChildren)
      and redis.call("EXISTS", jobKey .. ":dependencies", jobKey .. ":unsuccessful") ~= 0 then
    if redis.call("SCARD", jobKey .. ":dependencies") ~= 0 then
      return -4
    end
    if redis.call("ZCARD", jobKey .. ":unsuccessful") ~= 0 then
      return -9
    end
  end

  -- One read for everything below: whether the job exists (every job hash has a timestamp;
  -- a hash without one is checked the long way), its attempts made and its links. It comes
  -- before leaveActive writes f.fieldsJson, which must therefore never carry these fields
  -- (callers send failedReason and stacktrace only).
  local job = redis.call("HMGET", jobKey, "timestamp", "atm", "gid", "deid", "parentKey", "parent")
  local left = leaveActive(jobKey, k.active, k.stalled, f.jobId, f.token, f.fieldsJson, job[1] ~= false, batch)
  if left < 0 then
    return left
  end
  -- A grouped job frees its group slot (waking idle workers when the group was full).
  if job[3] then
    leaveGroupActive(Q, job[3], f.jobId)
  end

  -- A simple (no TTL) deduplication window closes when its owner finishes.
  local dedupId = job[4]
  if dedupId then
    local dedupKey = Q .. "de:" .. dedupId
    if redis.call("PTTL", dedupKey) == -1 and redis.call("GET", dedupKey) == f.jobId then
      redis.call("DEL", dedupKey)
    end
  end

  -- Before the job may be deleted below: its parent needs its key, result and flags.
  local links = {job[5], job[6]}
  onChildFinished(jobKey, f.target, f.value, f.now, links)

  -- attemptsMade goes up by one: written with the outcome below (what HINCRBY would leave),
  -- or not at all when the job is deleted.
  local attemptsMade = (tonumber(job[2]) or 0) + 1
  if f.keepCount == 0 then
    deleteFinishedJobDetached(Q, f.jobId, links)
  else
    if batch then
      batch.finished[#batch.finished + 1] = batch.nowText
      batch.finished[#batch.finished + 1] = f.jobId
      redis.call("HSET", jobKey, f.field, f.value, "finishedOn", batch.nowText, "atm", intText(attemptsMade))
    else
      redis.call("ZADD", k.finished, f.now, f.jobId)
      redis.call("HSET", jobKey, f.field, f.value, "finishedOn", f.now, "atm", attemptsMade)
    end
    if f.target == "failed" then
      redis.call("HDEL", jobKey, "defa")
    end
  end

  redis.call("XADD", k.events, "*", "event", f.target, "jobId", f.jobId, f.field, f.value, "prev", "active")
  if f.target == "failed" and attemptsMade >= f.attempts then
    redis.call("XADD", k.events, "*", "event", "retries-exhausted", "jobId", f.jobId, "attemptsMade", attemptsMade)
  end
  if batch then
    batch.metricsCount = batch.metricsCount + 1
  elseif f.metricsKey then
    collectMetrics(f.metricsKey, f.metricsKey .. ":data", f.metricsMax, f.now)
  end
  return 0
end
`,
  finishJobsTogether: `--- @include "batchedCall"
--- @include "collectMetrics"
-- What a call completing many jobs (moveToFinishedBatch) does once for all of them instead of
-- once per job: one MGET reads every lock, one EXISTS tells whether any job has children of its
-- own to check, and the writes that are the same for every job (dropping the locks, leaving the
-- stalled set, entering the finished set, the metrics count) are collected by finishActiveJob
-- and made at the end with one command each. Nothing else in the call reads what is collected,
-- so the outcome is the one of finishing the jobs one by one.

-- Q: queue prefix; entries: {jobId, ...} per job in the order they finish; nowText: now as an
-- integer string. Returns the batch table finishActiveJob takes; set batch.lockOwner to
-- batch.owners[i] before finishing entry i.
local function startFinishingTogether(Q, entries, nowText)
  local lockKeys, childKeys = {}, {}
  for i, entry in ipairs(entries) do
    local jobKey = Q .. entry[1]
    lockKeys[i] = jobKey .. ":lock"
    childKeys[#childKeys + 1] = jobKey .. ":dependencies"
    childKeys[#childKeys + 1] = jobKey .. ":unsuccessful"
  end
  local owners = {}
  local pendingChildren = 0
  -- Slices keep unpack under Lua's stack limit (about 8000 values).
  for from = 1, #lockKeys, 2000 do
    local to = math.min(from + 1999, #lockKeys)
    local slice = redis.call("MGET", unpack(lockKeys, from, to))
    for i = 1, #slice do
      owners[from + i - 1] = slice[i]
    end
    pendingChildren = pendingChildren
      + redis.call("EXISTS", unpack(childKeys, 2 * from - 1, 2 * to))
  end
  -- Completing a job only ever removes children sets, so "none" read here holds for the call.
  return {owners = owners, lockOwner = nil, noPendingChildren = pendingChildren == 0,
    locks = {}, unstalled = {}, finished = {}, nowText = nowText, metricsCount = 0}
end

-- The collected writes. k: {stalled, finished}; metrics: {key, max} or nil.
local function endFinishingTogether(batch, k, metrics, now)
  for from = 1, #batch.locks, 2000 do
    redis.call("DEL", unpack(batch.locks, from, math.min(from + 1999, #batch.locks)))
  end
  batchedCall("SREM", k.stalled, batch.unstalled)
  -- Score-member pairs: an even slice size keeps every pair in one slice.
  for from = 1, #batch.finished, 4000 do
    redis.call("ZADD", k.finished, unpack(batch.finished, from, math.min(from + 3999, #batch.finished)))
  end
  if metrics and batch.metricsCount > 0 then
    collectMetrics(metrics.key, metrics.key .. ":data", metrics.max, now, batch.metricsCount)
  end
end
`,
  getMaxEvents: `-- Approximate MAXLEN of the events stream, read from meta (written with the default when absent,
-- because bullmq readers and writers expect the field to exist once a queue is used).
local function getMaxEvents(metaKey)
  local maxEvents = redis.call("HGET", metaKey, "opts.maxLenEvents")
  if not maxEvents then
    maxEvents = 10000
    redis.call("HSET", metaKey, "opts.maxLenEvents", maxEvents)
  end
  return maxEvents
end
`,
  groupedStateViews: `-- The waiting and delayed states as a reader sees them, tenant groups included. A grouped job
-- that waits sits in its group's line (Q group:<gid>:wait), a delayed one in Q group-delayed,
-- never in Q wait or Q delayed (includes/groups.lua says why). Counts, listings and searches
-- read the state through these views so that every job is in one: docs/redis-keys.md, Groups.
--
-- The waiting view is a sequence of lines: Q wait first, then the line of every group in the
-- ring Q groups (the groups with ready jobs), in group id order, so that pages read one after
-- the other see one order. Each line is read from one end: from its head (newest first) or
-- from its tail (next to run first).

-- { {key, len}, ... }: Q wait, then each ready group's line in id order.
local function waitingLines(Q)
  local lines = {{key = Q .. "wait", len = redis.call("LLEN", Q .. "wait")}}
  local gids = redis.call("LRANGE", Q .. "groups", 0, -1)
  table.sort(gids)
  local previous = nil
  for _, gid in ipairs(gids) do
    if gid ~= previous then
      local key = Q .. "group:" .. gid .. ":wait"
      lines[#lines + 1] = {key = key, len = redis.call("LLEN", key)}
      previous = gid
    end
  end
  return lines
end

local function totalLength(lines)
  local total = 0
  for _, line in ipairs(lines) do
    total = total + line.len
  end
  return total
end

-- Ids at positions [from, to] (0-based, both within the sequence) of the lines laid end to
-- end, each line read from its head, or from its tail when fromTail.
local function readLines(lines, from, to, fromTail)
  local ids = {}
  local offset = 0
  for _, line in ipairs(lines) do
    local first, last = offset, offset + line.len - 1
    if last >= from and first <= to then
      local a = math.max(from, first) - offset
      local b = math.min(to, last) - offset
      if fromTail then
        local part = redis.call("LRANGE", line.key, -(b + 1), -(a + 1))
        for i = #part, 1, -1 do
          ids[#ids + 1] = part[i]
        end
      else
        for _, id in ipairs(redis.call("LRANGE", line.key, a, b)) do
          ids[#ids + 1] = id
        end
      end
    end
    offset = offset + line.len
    if offset > to then
      break
    end
  end
  return ids
end

-- Ids at positions [from, to] (0-based) of the sorted sets merged by score (ascending, or
-- descending when highFirst): reads the first to + 1 of each, so the cost grows with \`to\`.
local function readMergedSets(keys, from, to, highFirst)
  local runs = {}
  for _, key in ipairs(keys) do
    local command = highFirst and "ZREVRANGE" or "ZRANGE"
    runs[#runs + 1] = {entries = redis.call(command, key, 0, to, "WITHSCORES"), at = 1}
  end
  local ids = {}
  local position = 0
  while position <= to do
    local best = nil
    for _, run in ipairs(runs) do
      local id = run.entries[run.at]
      if id then
        local score = tonumber(run.entries[run.at + 1])
        if best == nil or (highFirst and score > best.score) or (not highFirst and score < best.score) then
          best = {run = run, id = id, score = score}
        end
      end
    end
    if best == nil then
      break
    end
    best.run.at = best.run.at + 2
    if position >= from then
      ids[#ids + 1] = best.id
    end
    position = position + 1
  end
  return ids
end

-- Ids at positions [from, to] (0-based) of the sorted sets laid end to end, each read by score
-- (ascending, or descending when highFirst): for walks that page deep into a state, where a
-- merge by score would cost the whole distance from the start on every page.
local function readSetsInTurn(keys, from, to, highFirst)
  local ids = {}
  local offset = 0
  for _, key in ipairs(keys) do
    local len = redis.call("ZCARD", key)
    if offset + len - 1 >= from and offset <= to then
      local a = math.max(from, offset) - offset
      local b = math.min(to, offset + len - 1) - offset
      for _, id in ipairs(redis.call(highFirst and "ZREVRANGE" or "ZRANGE", key, a, b)) do
        ids[#ids + 1] = id
      end
    end
    offset = offset + len
    if offset > to then
      break
    end
  end
  return ids
end

-- A [start, stop] window as Redis reads one (negative counts from the end) made absolute and
-- clamped to a sequence of \`total\` items; nil when it holds nothing.
local function absoluteWindow(start, stop, total)
  if start < 0 then
    start = total + start
  end
  if stop < 0 then
    stop = total + stop
  end
  start = math.max(start, 0)
  stop = math.min(stop, total - 1)
  if start > stop then
    return nil
  end
  return start, stop
end

-- Ready grouped jobs (every group's line), delayed grouped jobs, and the creation time (ms) of
-- the job next to run that has waited longest among the heads of the groups' lines (false when
-- no group has a ready job). One LLEN and two reads per group with ready jobs.
local function groupedCounts(Q)
  local waiting, oldest = 0, false
  local gids = redis.call("LRANGE", Q .. "groups", 0, -1)
  local seen = {}
  for _, gid in ipairs(gids) do
    if not seen[gid] then
      seen[gid] = true
      local key = Q .. "group:" .. gid .. ":wait"
      waiting = waiting + redis.call("LLEN", key)
      local head = redis.call("LINDEX", key, -1)
      if head then
        local created = tonumber(redis.call("HGET", Q .. head, "timestamp"))
        if created and (oldest == false or created < oldest) then
          oldest = created
        end
      end
    end
  end
  return waiting, redis.call("ZCARD", Q .. "group-delayed"), oldest
end
`,
  groups: `--- @include "isPausedOrMaxed"
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
--   Q group:<gid>:limiter  string fixed-window start counter; \`:limiter:log\` zset of start times
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
-- \`fits\` (batch fetches only): asked before a job is taken; when the group's next job does not
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

-- Moves due grouped delayed jobs (at most \`limit\`) to the back of their groups' lines.
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
`,
  insertJob: `--- @include "getMaxEvents"
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
--    groupId? (tenant group: the job gets hash field \`gid\` and waits in its group, see groups),
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
`,
  insertPlainJob: `--- @include "getMaxEvents"
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
`,
  intText: `-- Integers as the strings redis.call gets anyway. Lua formats a number argument with "%.14g"
-- on every call, which costs about what a small command does; counters such as attempts take
-- few distinct values in one script call, so each is formatted once.
local intTexts = {}

local function intText(n)
  local text = intTexts[n]
  if not text then
    text = string.format("%d", n)
    intTexts[n] = text
  end
  return text
end
`,
  isPausedOrMaxed: `-- A queue is "paused or maxed" when meta.paused exists, or when a global concurrency is set and
-- the active list already holds that many jobs. In that state no "jobs available" marker is
-- written and no job is handed out.
local function isPausedOrMaxed(metaKey, activeKey)
  local meta = redis.call("HMGET", metaKey, "paused", "concurrency")
  if meta[1] then
    return true
  end
  local concurrency = tonumber(meta[2])
  if concurrency then
    return redis.call("LLEN", activeKey) >= concurrency
  end
  return false
end

-- The same rule from meta's \`paused\` and \`concurrency\` fields the caller already read.
local function isPausedOrMaxedFrom(paused, concurrencyField, activeKey)
  if paused then
    return true
  end
  local concurrency = tonumber(concurrencyField)
  if concurrency then
    return redis.call("LLEN", activeKey) >= concurrency
  end
  return false
end
`,
  leaveActive: `--- @include "releaseJobLock"
-- The common first step of every move out of \`active\` by the worker that ran the job: the job
-- must exist and be locked by \`token\`; then the outcome's fields are written and the id leaves
-- the active list. Returns 0, or -1 (job missing), -2 / -6 (lock), -3 (not active).
-- knownToExist: true when the caller already read the job hash and found it.
-- batch: optional, see releaseJobLock.
local function leaveActive(jobKey, activeKey, stalledKey, jobId, token, fieldsJson, knownToExist, batch)
  if not knownToExist and redis.call("EXISTS", jobKey) == 0 then
    return -1
  end
  local lockResult = releaseJobLock(jobKey, stalledKey, token, jobId, batch)
  if lockResult < 0 then
    return lockResult
  end
  -- "[]" (nothing to write) is what every completion sends: not worth a JSON decode per job.
  if fieldsJson ~= "[]" then
    local fields = cjson.decode(fieldsJson)
    if #fields > 0 then
      redis.call("HSET", jobKey, unpack(fields))
    end
  end
  if redis.call("LREM", activeKey, "-1", jobId) == 0 then
    return -3
  end
  return 0
end
`,
  listSearch: `-- Looking for one id in a list that may hold a whole backlog (a wait list of a million jobs).
-- LPOS and LREM compare entries one by one from the end they start at, so their cost is the
-- distance from that end. Each end is searched over at most LIST_END_WINDOW entries first: the
-- ids looked for are mostly near one (the newest at the head, the next to run at the tail), and
-- both windows together stay far under a millisecond. See docs/reliability.md, Large backlogs.
local LIST_END_WINDOW = 10000

-- "head" or "tail" (found within that end's window), "absent" (the windows covered the whole
-- list and it is not there) or "middle" (not near either end of a longer list: maybe inside).
local function findNearListEnds(key, id)
  if redis.call("LPOS", key, id, "MAXLEN", LIST_END_WINDOW) then
    return "head"
  end
  if redis.call("LPOS", key, id, "RANK", -1, "MAXLEN", LIST_END_WINDOW) then
    return "tail"
  end
  if redis.call("LLEN", key) <= 2 * LIST_END_WINDOW then
    return "absent"
  end
  return "middle"
end

-- Removes one id from a list, scanning from the end it is nearest to. Returns true if it was
-- there. An id deep inside a long list costs a scan up to it: a Redis list cannot drop an entry
-- from its middle without one, and the wait list must stay a plain list of ids for bullmq.
local function removeIdFromList(key, id)
  local where = findNearListEnds(key, id)
  if where == "absent" then
    return false
  end
  return redis.call("LREM", key, where == "tail" and -1 or 1, id) > 0
end
`,
  markers: `-- Wake-up markers for blocked workers (BZPOPMIN on Q marker).
-- Member "0" with score 0 means "jobs are ready"; member "1" carries the due time (ms, may be
-- fractional) of the earliest delayed job, grouped ones (Q group-delayed) included.
local function signalJobsReady(markerKey, pausedOrMaxed)
  if not pausedOrMaxed then
    redis.call("ZADD", markerKey, "0", "0")
  end
end

-- The lowest score of Q delayed and of its grouped twin Q group-delayed (same encoding), or nil.
-- delayedKey is always Q .. "delayed".
local function earliestDelayedScore(delayedKey)
  local best = nil
  for _, key in ipairs({delayedKey, string.sub(delayedKey, 1, -8) .. "group-delayed"}) do
    local earliest = redis.call("ZRANGE", key, 0, 0, "WITHSCORES")
    if earliest[2] then
      local score = tonumber(earliest[2])
      if not best or score < best then
        best = score
      end
    end
  end
  return best
end

local function signalNextDelayed(markerKey, delayedKey)
  local earliest = earliestDelayedScore(delayedKey)
  if earliest then
    redis.call("ZADD", markerKey, earliest / 4096, "1")
  end
end

-- Earliest delayed due time in whole ms, or 0 when nothing is delayed.
local function nextDelayedDueTs(delayedKey)
  local earliest = earliestDelayedScore(delayedKey)
  if earliest then
    return math.floor(earliest / 4096)
  end
  return 0
end

-- Makes sure blocked workers wake by dueTs (ms): member "1" is moved earlier, never later.
local function signalWakeBy(markerKey, dueTs)
  local current = redis.call("ZSCORE", markerKey, "1")
  if not current or tonumber(current) > dueTs then
    redis.call("ZADD", markerKey, dueTs, "1")
  end
end
`,
  onChildFinished: `--- @include "parentOfJob"
--- @include "releaseParent"
-- What a child's final outcome does to its parent (nothing for a job without one).
-- completed: the return value lands in <parent>:processed; the parent runs once nothing is pending.
-- failed (final failure only), by the flag in the child's \`parent\` JSON:
--   fpof: recorded in <parent>:unsuccessful; the parent gets a deferred failure (\`defa\`) and is
--         moved to wait so that a worker fails it without running its processor;
--   cpof: the failure lands in <parent>:failed and the parent runs now, pending children or not;
--   idof: the failure lands in <parent>:failed; the parent runs once nothing is pending;
--   rdof: the child is dropped from the dependencies; the parent runs once nothing is pending;
--   none: the child stays pending, so the parent keeps waiting.
-- \`known\` (optional): the job's {parentKey, parent} fields when the caller already read them.
local function onChildFinished(jobKey, outcome, value, now, known)
  local fields = known or redis.call("HMGET", jobKey, "parentKey", "parent")
  local parentKey = fields[1]
  if not parentKey then
    return
  end
  local parentBase, parentId = parentOfJob(parentKey, fields[2])
  if not parentBase then
    return
  end
  local dependenciesKey = parentKey .. ":dependencies"

  if outcome == "completed" then
    if redis.call("SREM", dependenciesKey, jobKey) == 1 then
      redis.call("HSET", parentKey .. ":processed", jobKey, value)
      releaseParentIfDone(parentKey, parentBase, parentId, now)
    end
    return
  end

  local flags = {}
  if fields[2] then
    local ok, parent = pcall(cjson.decode, fields[2])
    if ok and type(parent) == "table" then
      flags = parent
    end
  end
  if flags.fpof then
    if redis.call("SREM", dependenciesKey, jobKey) == 1 then
      redis.call("ZADD", parentKey .. ":unsuccessful", now, jobKey)
    end
    if redis.call("EXISTS", parentKey) == 0 then
      return
    end
    local reason = "child " .. jobKey .. " failed"
    local released = redis.call("ZREM", parentBase .. "waiting-children", parentId) == 1
    if not released and (redis.call("ZREM", parentBase .. "delayed", parentId) == 1
        or redis.call("ZREM", parentBase .. "group-delayed", parentId) == 1) then
      redis.call("HSET", parentKey, "delay", 0)
      released = true
    end
    if released then
      redis.call("HSET", parentKey, "defa", reason)
      -- Straight to wait (not delayed again): the worker that fetches it fails it at once.
      redis.call("HSET", parentKey, "delay", 0)
      releaseParent(parentBase, parentId, now)
    elseif not redis.call("ZSCORE", parentBase .. "failed", parentId) then
      redis.call("HSET", parentKey, "defa", reason)
    end
  elseif flags.cpof then
    redis.call("SREM", dependenciesKey, jobKey)
    redis.call("HSET", parentKey .. ":failed", jobKey, value)
    if redis.call("EXISTS", parentKey) == 1 and redis.call("ZREM", parentBase .. "waiting-children", parentId) == 1 then
      releaseParent(parentBase, parentId, now)
    end
  elseif flags.idof then
    if redis.call("SREM", dependenciesKey, jobKey) == 1 then
      redis.call("HSET", parentKey .. ":failed", jobKey, value)
      releaseParentIfDone(parentKey, parentBase, parentId, now)
    end
  elseif flags.rdof then
    if redis.call("SREM", dependenciesKey, jobKey) == 1 then
      releaseParentIfDone(parentKey, parentBase, parentId, now)
    end
  end
end
`,
  parentOfJob: `--- @include "splitJobKey"
-- The parent's queue base key (with the trailing colon) and id: from the \`parent\` JSON when it
-- is readable, else by splitting \`parentKey\`.
local function parentOfJob(parentKey, parentJson)
  if parentJson then
    local ok, parent = pcall(cjson.decode, parentJson)
    if ok and type(parent) == "table" and type(parent.queueKey) == "string"
        and parent.id ~= nil then
      return parent.queueKey .. ":", tostring(parent.id)
    end
  end
  return splitJobKey(parentKey)
end
`,
  promoteDueDelayedJobs: `--- @include "enqueueReadyJob"
--- @include "groups"
-- Moves delayed jobs whose due time has come (at most PROMOTE_PER_CALL per call) to wait or
-- prioritized, and due grouped delayed jobs (Q group-delayed, at most as many more) to their
-- groups' lines. bullmq promotes up to 1000 per call; a fetch that promotes that many runs for
-- several milliseconds, so a large due batch goes over in smaller steps, one per fetch (see
-- docs/reliability.md, Large backlogs). Promoted jobs join the wait list behind every job
-- already waiting, so the step size does not change which job runs next.
-- A string: redis.call formats number arguments on every call.
local PROMOTE_PER_CALL = "250"

local function promoteDueDelayedJobs(delayedKey, waitKey, prioritizedKey, pcKey, eventsKey, markerKey, Q, now, pausedOrMaxed)
  local due = redis.call("ZRANGEBYSCORE", delayedKey, "0", dueScoreBound(now), "LIMIT", "0", PROMOTE_PER_CALL)
  for _, jobId in ipairs(due) do
    redis.call("ZREM", delayedKey, jobId)
    local jobKey = Q .. jobId
    local fields = redis.call("HMGET", jobKey, "priority", "gid")
    local priority = tonumber(fields[1]) or 0
    if fields[2] then
      -- A grouped job a bullmq script delayed: it goes back to its group.
      pushGroupedJob(Q, fields[2], jobId, "LPUSH")
    elseif priority > 0 then
      redis.call("ZADD", prioritizedKey, priorityScore(pcKey, priority), jobId)
    else
      redis.call("LPUSH", waitKey, jobId)
    end
    redis.call("XADD", eventsKey, "*", "event", "waiting", "jobId", jobId, "prev", "delayed")
    redis.call("HSET", jobKey, "delay", 0)
  end
  if #due + promoteDueGroupedJobs(Q, now, PROMOTE_PER_CALL) > 0 then
    signalJobsReady(markerKey, pausedOrMaxed)
  end
end
`,
  releaseJobLock: `-- Drops the lock a worker holds on a job. Token "0" means the caller never took a lock.
-- Returns 0 on success, -6 when another token owns the lock, -2 when the lock is gone.
-- batch (optional, a call finishing many jobs, see includes/finishJobsTogether.lua): the lock's
-- owner as read for the whole call (\`lockOwner\`), and the lock keys and stalled ids to drop,
-- collected so that the call drops them all with one DEL and one SREM.
local function releaseJobLock(jobKey, stalledKey, token, jobId, batch)
  if token == "0" then
    return 0
  end
  local lockKey = jobKey .. ":lock"
  local owner
  if batch then
    owner = batch.lockOwner
  else
    owner = redis.call("GET", lockKey)
  end
  if owner == token then
    if batch then
      batch.locks[#batch.locks + 1] = lockKey
      batch.unstalled[#batch.unstalled + 1] = jobId
    else
      redis.call("DEL", lockKey)
      redis.call("SREM", stalledKey, jobId)
    end
    return 0
  end
  if owner then
    return -6
  end
  return -2
end
`,
  releaseParent: `--- @include "isPausedOrMaxed"
--- @include "markers"
--- @include "scores"
--- @include "groups"
-- Moves a parent whose children are done out of waiting-children of its own queue (parentBase,
-- with the trailing colon): to delayed when it has a delay (due now + delay), else to the front
-- of wait (priority 0) or into prioritized; a grouped parent to Q group-delayed or the front of
-- its group's line. Events go to the parent queue's stream.
local function releaseParent(parentBase, parentId, now)
  local parentKey = parentBase .. parentId
  local fields = redis.call("HMGET", parentKey, "delay", "priority", "gid")
  local delay = tonumber(fields[1]) or 0
  local priority = tonumber(fields[2]) or 0
  local gid = fields[3]
  local eventsKey = parentBase .. "events"
  local markerKey = parentBase .. "marker"
  if delay > 0 then
    local dueTs = now + delay
    local delayedKey = parentBase .. "delayed"
    if gid then
      redis.call("ZADD", parentBase .. "group-delayed", dueTs * 4096, parentId)
    else
      redis.call("ZADD", delayedKey, dueTs * 4096, parentId)
    end
    redis.call("XADD", eventsKey, "*", "event", "delayed", "jobId", parentId, "delay", dueTs)
    signalNextDelayed(markerKey, delayedKey)
    return
  end
  local pausedOrMaxed = isPausedOrMaxed(parentBase .. "meta", parentBase .. "active")
  if gid then
    pushGroupedJob(parentBase, gid, parentId, "RPUSH")
  elseif priority > 0 then
    redis.call("ZADD", parentBase .. "prioritized", priorityScore(parentBase .. "pc", priority), parentId)
  else
    -- RPUSH: the front of the line, ahead of jobs that were already waiting.
    redis.call("RPUSH", parentBase .. "wait", parentId)
  end
  signalJobsReady(markerKey, pausedOrMaxed)
  redis.call("XADD", eventsKey, "*", "event", "waiting", "jobId", parentId, "prev", "waiting-children")
end

-- Releases the parent if it has no pending children and is still waiting for them.
local function releaseParentIfDone(parentKey, parentBase, parentId, now)
  if redis.call("SCARD", parentKey .. ":dependencies") == 0 and redis.call("EXISTS", parentKey) == 1
      and redis.call("ZREM", parentBase .. "waiting-children", parentId) == 1 then
    releaseParent(parentBase, parentId, now)
  end
end
`,
  removeJobDetached: `--- @include "deleteJobKeys"
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
-- A released parent is always announced (\`waiting\`, prev=waiting-children) on its queue's
-- events and woken with a marker unless that queue is paused or maxed. bullmq 6.7.0 skips the
-- event when releasing a cross-queue parent in hard mode; emitting it keeps QueueEvents
-- listeners of the parent queue informed and bullmq readers accept it.
-- Parent keys come from the job hash (\`parentKey\`, \`parent\` JSON), not from KEYS: on a cluster
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
`,
  removeJobWithDedup: `--- @include "deleteJobKeys"
--- @include "groups"
-- Deletes a job's keys, and first its deduplication key (plus the "dedup next" proto-job) when
-- that key still points at this job, so the next add with the same deduplication id is not
-- swallowed by a job that no longer exists. A grouped job also leaves its group's active set
-- (waking idle workers if that frees a slot) and Q group-delayed, both cheap; taking it out of
-- its group's line is the caller's part, as taking it out of Q wait is.
local function removeJobWithDedup(Q, jobId)
  local jobKey = Q .. jobId
  local fields = redis.call("HMGET", jobKey, "deid", "gid")
  local dedupId = fields[1]
  if dedupId then
    local dedupKey = Q .. "de:" .. dedupId
    if redis.call("GET", dedupKey) == jobId then
      redis.call("DEL", dedupKey, Q .. "dn:" .. dedupId)
    end
  end
  if fields[2] then
    leaveGroupActive(Q, fields[2], jobId)
    redis.call("ZREM", Q .. "group-delayed", jobId)
  end
  deleteJobKeys(jobKey)
end
`,
  returnChildToParent: `-- A finished child that is retried (job.retry, Queue.retryJobs) becomes pending again in its
-- live parent: it leaves the record its outcome left there (\`:processed\` for a completed child;
-- \`:unsuccessful\` or \`:failed\` for a failed one) and rejoins \`:dependencies\` (docs/redis-keys.md). A child
-- that left no record (still pending, or dropped by removeDependencyOnFailure) is left alone,
-- and the parent is never moved back into waiting-children: one that was already released runs
-- (or ran) without it, as bullmq's does.
local function returnChildToParent(jobKey, finishedState)
  local parentKey = redis.call("HGET", jobKey, "parentKey")
  if not parentKey or redis.call("EXISTS", parentKey) == 0 then
    return
  end
  local recorded
  if finishedState == "failed" then
    recorded = redis.call("ZREM", parentKey .. ":unsuccessful", jobKey) == 1
      or redis.call("HDEL", parentKey .. ":failed", jobKey) == 1
  else
    recorded = redis.call("HDEL", parentKey .. ":processed", jobKey) == 1
  end
  if recorded then
    redis.call("SADD", parentKey .. ":dependencies", jobKey)
  end
end
`,
  schedulerIteration: `-- True when jobId is the pending iteration of a live job scheduler: ids of iterations are
-- "repeat:<schedulerId>:<millis>" and the scheduler's score in the repeat zset is that millis.
-- Such jobs are owned by their scheduler: removal refuses them, clean and drain skip them.
local function isCurrentSchedulerIteration(repeatKey, jobId)
  if string.sub(jobId, 1, 7) ~= "repeat:" then
    return false
  end
  local schedulerId, millis = string.match(string.sub(jobId, 8), "^(.*):([^:]*)$")
  if not schedulerId then
    return false
  end
  local score = redis.call("ZSCORE", repeatKey, schedulerId)
  return score ~= false and score ~= nil and tonumber(score) == tonumber(millis)
end
`,
  schedulerJobs: `--- @include "insertJob"
--- @include "removeJobWithDedup"
--- @include "schedulerSlots"
--- @include "groups"
--- @include "listSearch"
-- Iteration jobs of job schedulers: ordinary jobs with id "repeat:<schedulerId>:<millis>" and
-- the hash field \`rjk\` = scheduler id.

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

-- Stores and enqueues the iteration at \`millis\` (INCRs the id counter, emits added and
-- waiting/delayed). \`opts\` is the decoded iteration opts table; its jobId and delay are set here.
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
`,
  schedulerSlots: `-- Timing of job schedulers (bullmq 6 semantics, our own arithmetic). Millis are whole ms.

-- The text form of a millis value in ids and keys: "repeat:<schedulerId>:<millis>".
local function millisText(ms)
  return string.format("%d", ms)
end

local function schedulerIterationId(schedulerId, millis)
  return "repeat:" .. schedulerId .. ":" .. millisText(millis)
end

-- The offset an every-schedule keeps: the given one, or where \`millis\` falls in its interval.
local function everyOffset(millis, every, offset)
  if offset and offset > 0 then
    return offset
  end
  return millis % every
end

-- The first run of a new (or re-timed) every-schedule: at startDate (never in the past), else on
-- the next k * every + offset slot when an offset is given, else now.
local function firstEverySlot(every, now, offset, startDate)
  local millis
  if startDate then
    millis = math.max(startDate, now)
  elseif offset and offset > 0 then
    millis = math.floor(now / every) * every + offset
    if millis <= now then
      millis = millis + every
    end
  else
    millis = now
  end
  millis = math.floor(millis)
  return millis, everyOffset(millis, every, offset)
end

-- The run after the one at \`prevMillis\`. When that slot is already past (the schedule fell
-- behind, e.g. no worker ran for a while) the missed slots are skipped: the next run is the first
-- slot of the schedule's grid (k * every + offset) strictly after now. No burst of catch-up runs.
local function nextEverySlot(prevMillis, every, now, offset)
  local millis = prevMillis + every
  if millis < now then
    millis = math.floor(now / every) * every + (offset or 0)
    if millis <= now then
      millis = millis + every
    end
  end
  millis = math.floor(millis)
  return millis, everyOffset(millis, every, offset)
end
`,
  scores: `-- Score encodings shared with bullmq 6.
-- Delayed: dueTs * 4096 plus a sequence (0..4095) that keeps FIFO order among jobs due in the
-- same millisecond; the sequence continues from the highest score already in that millisecond.
local function delayedScore(delayedKey, dueTs)
  local base = dueTs * 4096
  local top = redis.call("ZREVRANGEBYSCORE", delayedKey, base + 4095, base, "WITHSCORES", "LIMIT", 0, 1)
  if top[2] then
    local nextScore = tonumber(top[2]) + 1
    if nextScore > base + 4095 then
      nextScore = base + 4095
    end
    return nextScore
  end
  return base
end

-- Prioritized: priority * 2^32 plus a per-queue counter, so equal priorities keep FIFO order.
local function priorityScore(pcKey, priority)
  local counter = redis.call("INCR", pcKey) % 4294967296
  return priority * 4294967296 + counter
end

-- The highest delayed score due by \`now\` (every sequence of its millisecond), as an integer
-- string: formatted once here rather than by redis.call, which formats number arguments anew
-- on every call.
local function dueScoreBound(now)
  return string.format("%.0f", (now + 1) * 4096 - 1)
end
`,
  splitJobKey: `-- Splits a full job key "<prefix>:<queue>:<jobId>" on its last colon into the queue base key
-- (with the trailing colon) and the job id. Returns nil for a key without a colon.
local function splitJobKey(fullKey)
  local base, jobId = string.match(fullKey, "^(.*:)([^:]*)$")
  return base, jobId
end
`,
  startJob: `-- The writes that hand a taken job (already in \`active\`) to a worker, shared by the one-job fetch
-- (fetchNextJob) and the run of a batch taken straight from wait (takeWaitingRun): the lock, the
-- \`active\` event and the start fields, with the reply's copy of the hash patched to match.

--- @include "intText"
-- The fields of a job hash a start reads or writes.
local START_FIELDS = {gid = true, defa = true, ats = true, processedOn = true, pb = true}

-- Positions of START_FIELDS' values in a flat HGETALL reply, found in one pass (a job hash has
-- 10-20 fields; looking each field up on its own walked it once per field).
local function startFieldPositions(flat)
  local at = {}
  for i = 1, #flat, 2 do
    if START_FIELDS[flat[i]] then
      at[flat[i]] = i + 1
    end
  end
  return at
end

local function setFlatAt(flat, at, field, value)
  local i = at[field]
  if i then
    flat[i] = value
  else
    flat[#flat + 1] = field
    flat[#flat + 1] = value
  end
end

-- k: {events}; w: worker table {token, lockDuration, name?}; nowText: now as an integer string
-- (a number argument to redis.call would be formatted with %.14g on every call).
-- at: startFieldPositions(flat).
local function startJob(k, Q, jobId, flat, at, w, nowText)
  local jobKey = Q .. jobId
  if w.token ~= "0" then
    w.lockText = w.lockText or intText(w.lockDuration)
    redis.call("SET", jobKey .. ":lock", w.token, "PX", w.lockText)
  end
  redis.call("XADD", k.events, "*", "event", "active", "jobId", jobId, "prev", "waiting")
  -- attemptsStarted goes up by one, as HINCRBY would leave it.
  local attemptsStarted = intText((tonumber(at.ats and flat[at.ats]) or 0) + 1)
  if w.name then
    redis.call("HSET", jobKey, "processedOn", nowText, "ats", attemptsStarted, "pb", w.name)
    setFlatAt(flat, at, "pb", w.name)
  else
    redis.call("HSET", jobKey, "processedOn", nowText, "ats", attemptsStarted)
  end
  setFlatAt(flat, at, "processedOn", nowText)
  setFlatAt(flat, at, "ats", attemptsStarted)
end
`,
  takeWaitingRun: `--- @include "batchedCall"
--- @include "promoteDueDelayedJobs"
--- @include "startJob"
-- The common case of a batch fetch, in a few commands instead of a few per job: no rate limit,
-- no pause or global concurrency, no tenant groups in the ring, no byte budget. The batch then
-- is the run of jobs at the tail of the wait list (the next ones in line), read with one LRANGE,
-- cut with one LTRIM and pushed onto \`active\` with one LPUSH, in the order one-by-one pops
-- would leave. Each job still gets its own hash read, lock, \`active\` event and start fields,
-- which bullmq workers, QueueEvents and Bull-Board read.
-- Appends the jobs taken to hashes/ids, which the caller passes empty, and returns how many
-- (0 when the case does not apply or wait is empty); the caller's per-job path takes the rest
-- (prioritized jobs, grouped work).
-- batch: fetchJobBatch's table; gets \`meta\` and, once delayed jobs were promoted here, \`later\`.

local function takeWaitingRun(k, Q, now, w, batch, batchSize, hashes, ids)
  local meta = redis.call("HMGET", k.meta, "max", "duration", "paused", "concurrency")
  batch.meta = meta
  if meta[1] or w.limitMax or meta[3] or meta[4] then
    return 0
  end
  promoteDueDelayedJobs(k.delayed, k.wait, k.prioritized, k.pc, k.events, k.marker, Q, now, false)
  batch.later = true
  -- Promotion may have put grouped jobs in their groups' lines: checked after it.
  if redis.call("LLEN", Q .. "groups") > 0 then
    return 0
  end
  batch.noGroups = true

  local run = redis.call("LRANGE", k.wait, -batchSize, -1)
  if #run == 0 then
    return 0
  end
  redis.call("LTRIM", k.wait, 0, -(#run + 1))
  local nowText = string.format("%.0f", now)
  -- The tail of the list is next in line: the run is walked from its end.
  for i = #run, 1, -1 do
    local jobId = run[i]
    -- Entries starting with "0:" are markers left by bullmq 4 / early 5; they are dropped.
    if string.sub(jobId, 1, 2) ~= "0:" then
      local flat = redis.call("HGETALL", Q .. jobId)
      local at = startFieldPositions(flat)
      if at.gid then
        -- A grouped job in the plain wait list (a bullmq script put it there) goes back to the
        -- front of its group's line; the rest of the run goes back to the tail of wait, and the
        -- per-job path, which takes turns between groups and plain jobs, goes on from there.
        pushGroupedJob(Q, flat[at.gid], jobId, "RPUSH")
        batch.noGroups = nil
        local rest = {}
        for j = 1, i - 1 do
          rest[j] = run[j]
        end
        batchedCall("RPUSH", k.wait, rest)
        break
      end
      startJob(k, Q, jobId, flat, at, w, nowText)
      hashes[#hashes + 1] = flat
      ids[#ids + 1] = jobId
    end
  end
  -- LPUSH of the taken ids in order leaves the last one at the head, as its pop would have.
  batchedCall("LPUSH", k.active, ids)
  return #ids
end
`,
  trimFinishedJobs: `--- @include "removeJobDetached"
--- @include "batchedCall"
-- Applies removeOnComplete / removeOnFail to the finished set after a job landed in it:
-- jobs older than \`age\` seconds (at most \`limit\` of them) and jobs beyond the newest \`count\`.
-- Each trimmed job is detached from its parent first (a parent left without pending children is
-- released to its wait list); deduplication keys are not touched.
local function trimFinishedJobs(finishedKey, Q, now, keep)
  if keep.age then
    local cutoff = now - keep.age * 1000
    local old = redis.call("ZRANGEBYSCORE", finishedKey, 0, cutoff, "LIMIT", 0, keep.limit or 1000)
    for _, id in ipairs(old) do
      deleteFinishedJobDetached(Q, id)
    end
    batchedCall("ZREM", finishedKey, old)
  end
  if keep.count and keep.count > 0 then
    local extra = redis.call("ZREVRANGE", finishedKey, keep.count, keep.count + 999)
    for _, id in ipairs(extra) do
      deleteFinishedJobDetached(Q, id)
    end
    batchedCall("ZREM", finishedKey, extra)
  end
end
`,
};

/** Every OxMQ command, with its includes inlined. */
export const SCRIPTS: {
  readonly [Name in keyof ScriptKeyNames]: ScriptDefinition<Name, ScriptKeyNames[Name]>;
} = {
  addFlow: {
    name: 'addFlow',
    numberOfKeys: 1,
    keys: ['meta'],
    lua: inlineIncludes(
      `--[[
  Adds flows (trees of jobs across queues). Each flow is atomic: either every node of it is
  written or, when a check of one of its nodes fails, none is; the other flows of the call are
  written all the same (bullmq's FlowProducer.addBulk adds the valid flows too). Parents come
  before their children in the node list; each child joins its parent's dependencies; parents
  whose children are all already complete (duplicates of finished jobs) are released at the end.

  KEYS[1] meta (of the first root's queue; routes the call; every other key is built from the
          nodes' queue bases, so on a cluster all queues of a flow must share one hash-tagged
          prefix)

  ARGV[1] JSON array of node tables (see includes/insertJob.lua) with \`base\` (Q), \`flow\` (the
          index of the flow the node belongs to) and \`external\` = true on a node whose parent is
          an existing job outside the flow
  ARGV[2] now (ms)

  Returns {0, id1, dup1, id2, dup2, ...} in node order (dup 1 = the custom id already existed).
  The nodes of a flow that was not written get, instead of {id, dup}, {the index (1-based) of
  the node whose check failed, the error code}: -5 an outside parent is missing, -7 a node's
  custom id already belongs to another parent.
]]
--- @include "insertJob"

local nodes = cjson.decode(ARGV[1])
local now = tonumber(ARGV[2])

-- First pass: every check that could fail, before anything is written; a failure drops the
-- node's whole flow.
local failedFlows = {}
for i, node in ipairs(nodes) do
  if not failedFlows[node.flow] then
    if node.external and redis.call("EXISTS", node.parentKey) == 0 then
      failedFlows[node.flow] = {-5, i}
    elseif node.customId ~= "" and node.parentKey then
      local existingKey = node.base .. node.customId
      local current = redis.call("HGET", existingKey, "parentKey")
      if current and current ~= node.parentKey and redis.call("EXISTS", current) == 1 then
        failedFlows[node.flow] = {-7, i}
      end
    end
  end
end

local reply = {0}
local parents = {}
-- What insertJob reads once per call, by queue (see its memo).
local memos = {}
-- Job keys this call wrote: a child whose parent is one of them needs no check that it exists.
local written = {}
for _, node in ipairs(nodes) do
  local failure = failedFlows[node.flow]
  if failure then
    table.insert(reply, failure[2])
    table.insert(reply, failure[1])
  else
    node.deferParentRelease = true
    node.parentWritten = node.parentKey ~= nil and written[node.parentKey] == true
    memos[node.base] = memos[node.base] or {}
    local jobId, duplicate = insertJob(queueKeysFromBase(node.base), node, now, memos[node.base])
    if not jobId then
      -- Unreachable after the first pass; kept so a broken invariant fails loudly.
      return redis.error_reply("addFlow: node insert failed with " .. tostring(duplicate))
    end
    table.insert(reply, jobId)
    table.insert(reply, duplicate and 1 or 0) -- flow nodes never deduplicate (checked client-side)
    if node.asParent and not duplicate then
      table.insert(parents, {node.base, jobId})
    end
    written[node.base .. jobId] = true
  end
end

for _, parent in ipairs(parents) do
  releaseParentIfDone(parent[1] .. parent[2], parent[1], parent[2], now)
end
return reply
`,
      INCLUDES,
    ),
  },
  addJob: {
    name: 'addJob',
    numberOfKeys: 1,
    keys: ['meta'],
    lua: inlineIncludes(
      `--[[
  Adds one job: stores its hash and enqueues it as delayed, prioritized, waiting, or (a parent
  given children elsewhere) waiting-children. A job with a parent joins its dependencies. A
  grouped job (\`groupId\`) waits in its group's line or in Q group-delayed instead.

  KEYS[1] meta (routes the call; the queue's other keys are built from its base Q, the meta
          key without "meta")

  Two argument forms (engine/backend/redis/add-job.ts builds both):
  - a plain job (no parent, children, deduplication or group; whole ms): four to eight
    arguments, trailing defaults left out unless extra fields follow:
    ARGV[1] name   ARGV[3] data (JSON text)  ARGV[5] delay (ms, "0")  ARGV[7] custom id ("")
    ARGV[2] timestamp (ms)   ARGV[4] opts (JSON text)   ARGV[6] priority ("0")
    ARGV[8] "1" for lifo ("0")   ARGV[9..] extra hash fields, flat name/value pairs
  - any other job: exactly two arguments:
    ARGV[1] the JSON job table of includes/insertJob.lua   ARGV[2] now (ms)

  Returns the new job's id; {existingJobId, 1} when the custom id already exists,
  {ownerJobId, 2} when deduplication kept an existing job instead, or a negative error code:
  -5 parent missing, -7 the job already belongs to another parent.

  Cost (docs/benchmarks.md, scenario add): Redis pays for every argument and creates a script's
  local functions again on every call, and the plain add is the hot path. So it takes few
  arguments, and only the fragments it needs are defined at the top; insertJob and all it
  includes live inside addFromJobTable, created only when such a job comes.
]]
--- @include "insertPlainJob"

local Q = string.sub(KEYS[1], 1, -5)

local function addFromJobTable(jobJson, now)
--- @include "insertJob"
  local job = cjson.decode(jobJson)
  local jobId, outcome = insertJob(queueKeysFromBase(Q), job, now)
  if not jobId then
    return outcome
  end
  if outcome == "duplicate" then
    return {jobId, 1}
  elseif outcome == "deduplicated" then
    return {jobId, 2}
  end
  return jobId
end

if #ARGV == 2 then
  return addFromJobTable(ARGV[1], tonumber(ARGV[2]))
end

-- A plain job (includes/insertPlainJob.lua).
return insertPlainJob(Q, readAddMeta(KEYS[1]), 1, #ARGV)
`,
      INCLUDES,
    ),
  },
  addJobBatch: {
    name: 'addJobBatch',
    numberOfKeys: 11,
    keys: [
      'wait',
      'meta',
      'id',
      'delayed',
      'prioritized',
      'pc',
      'marker',
      'events',
      'active',
      'waitingChildren',
      'completed',
    ],
    lua: inlineIncludes(
      `--[[
  Adds several jobs of one queue in one call (Queue.addBulk), each exactly as addJob adds one.
  One call instead of one per job inside a MULTI: the same atomicity (nothing else runs between
  the adds), without a script invocation and its key list per job.

  KEYS[1] wait      KEYS[5] prioritized  KEYS[9]  active
  KEYS[2] meta      KEYS[6] pc           KEYS[10] waiting-children
  KEYS[3] id        KEYS[7] marker       KEYS[11] completed
  KEYS[4] delayed   KEYS[8] events

  Two argument forms (engine/backend/redis/add-job.ts builds both):
  - every job plain (see includes/insertPlainJob.lua), all in this queue:
    ARGV[1] "plain", then per job: its argument count n, then its n positional arguments
  - otherwise: ARGV[1] JSON array of job tables (see includes/insertJob.lua), each with \`base\`
    ARGV[2] now (ms)

  Returns one reply per job, in order: {jobId, 0 | 1 | 2}, or a plain job's id alone when it
  was stored, or a negative error code. A job refused (missing parent, parent taken) does not
  stop the others, as in a MULTI.
]]
--- @include "insertPlainJob"
--- @include "insertJob"

if ARGV[1] == "plain" then
  local Q = string.sub(KEYS[2], 1, -5)
  local meta = readAddMeta(KEYS[2])
  local replies = {}
  local at = 2
  while at <= #ARGV do
    local count = tonumber(ARGV[at])
    replies[#replies + 1] = insertPlainJob(Q, meta, at + 1, count)
    at = at + 1 + count
  end
  return replies
end

local now = tonumber(ARGV[2])
local replies = {}
-- What insertJob reads once per call, by queue (see its memo).
local memos = {}
for i, job in ipairs(cjson.decode(ARGV[1])) do
  memos[job.base] = memos[job.base] or {}
  local jobId, outcome = insertJob(queueKeysFromKeys(job.base, 1), job, now, memos[job.base])
  if not jobId then
    replies[i] = outcome
  elseif outcome == "duplicate" then
    replies[i] = {jobId, 1}
  elseif outcome == "deduplicated" then
    replies[i] = {jobId, 2}
  else
    replies[i] = {jobId, 0}
  end
end
return replies
`,
      INCLUDES,
    ),
  },
  addJobScheduler: {
    name: 'addJobScheduler',
    numberOfKeys: 12,
    keys: [
      'repeat',
      'wait',
      'meta',
      'id',
      'delayed',
      'prioritized',
      'pc',
      'marker',
      'events',
      'active',
      'waitingChildren',
      'completed',
    ],
    lua: inlineIncludes(
      `--[[
  Creates or replaces a job scheduler (Queue.upsertJobScheduler): rewrites \`Q repeat:<id>\`
  (keeping its iteration count \`ic\`), sets its score in \`Q repeat\`, and makes sure exactly one
  iteration is pending. A still pending iteration (delayed, prioritized or waiting) is replaced;
  for an unchanged every-schedule the replacement keeps its slot. An iteration that already
  started is left alone and the new one takes the next slot.

  KEYS[1] repeat   KEYS[4]  id         KEYS[7]  pc       KEYS[10] active
  KEYS[2] wait     KEYS[5]  delayed    KEYS[8]  marker   KEYS[11] waiting-children
  KEYS[3] meta     KEYS[6]  prioritized KEYS[9] events   KEYS[12] completed

  ARGV[1] JSON {base (Q), id (scheduler id), nextMillis (cron: computed by the client; absent
          for every), scheduler {name, every?, pattern?, tz?, limit?, startDate?, endDate?,
          offset?}, data (template data JSON text), templateOpts (table, short keys),
          jobOpts (the iteration's opts table, short keys; jobId and delay are set here),
          require? ("running": the scheduler must exist and not be paused; "paused": it must
          exist and be paused; OxMQ's edit and resume, so neither brings back a scheduler that
          was removed meanwhile)}
  ARGV[2] now (ms)

  The rewrite drops OxMQ's pause fields (\`oxmq.pausedAt\`, \`oxmq.nextCount\`): any upsert, ours or
  bullmq's, leaves the scheduler running.

  Returns {jobId, delay}, or -10 (cron: the iteration's id is taken by another job), -11
  (every: 32 consecutive slots are taken), -12 (require given: no such scheduler) or -13
  (require given: the scheduler is paused, or not paused, against it).
]]
--- @include "schedulerJobs"

local s = cjson.decode(ARGV[1])
local now = tonumber(ARGV[2])
local k = queueKeysFromKeys(s.base, 2)
local repeatKey = KEYS[1]
local schedulerId = s.id
local schedulerKey = repeatKey .. ":" .. schedulerId
local def = s.scheduler

local prevMillis = tonumber(redis.call("ZSCORE", repeatKey, schedulerId))
if s.require then
  if not prevMillis or redis.call("EXISTS", schedulerKey) == 0 then
    return -12
  end
  local paused = redis.call("HEXISTS", schedulerKey, "oxmq.pausedAt") == 1
  if paused ~= (s.require == "paused") then
    return -13
  end
end
local stored = redis.call("HMGET", schedulerKey, "every", "offset", "startDate", "ic")
local pendingState
if prevMillis then
  pendingState = pendingIterationState(k, schedulerIterationId(schedulerId, prevMillis))
end

local every = tonumber(def.every)
local millis, offset
if every then
  local givenOffset = tonumber(def.offset)
  local storedOffset = tonumber(stored[2])
  -- Same every, offset and start: the schedule keeps its grid; otherwise it starts afresh.
  local sameTiming = prevMillis and tonumber(stored[1]) == every
    and (givenOffset == nil or givenOffset == storedOffset)
    and tonumber(stored[3]) == tonumber(def.startDate)
  if sameTiming and pendingState then
    millis, offset = prevMillis, storedOffset or (prevMillis % every)
  elseif sameTiming then
    millis, offset = nextEverySlot(prevMillis, every, now, storedOffset)
  else
    millis, offset = firstEverySlot(every, now, givenOffset, tonumber(def.startDate))
  end
else
  millis = math.floor(tonumber(s.nextMillis))
  offset = 0
end

-- The replaced pending iteration frees its own id; any other existing job blocks the slot.
local function slotTaken(ms)
  if pendingState and ms == prevMillis then
    return false
  end
  return redis.call("EXISTS", k.base .. schedulerIterationId(schedulerId, ms)) == 1
end
if slotTaken(millis) then
  if not every then
    return -10
  end
  local scans = 0
  repeat
    millis = millis + every
    scans = scans + 1
  until not slotTaken(millis) or scans >= 32
  if slotTaken(millis) then
    return -11
  end
end

if pendingState then
  removePendingIteration(k, schedulerIterationId(schedulerId, prevMillis), pendingState)
end

-- The hash is rewritten whole, fields in bullmq's order; \`ic\` survives.
local fields = {"name", def.name}
for _, field in ipairs({"tz", "limit", "pattern", "startDate", "endDate", "every"}) do
  if def[field] ~= nil then
    fields[#fields + 1] = field
    fields[#fields + 1] = def[field]
  end
end
fields[#fields + 1] = "offset"
fields[#fields + 1] = offset
local templateOpts = cjson.encode(s.templateOpts or {})
if templateOpts ~= "{}" then
  fields[#fields + 1] = "opts"
  fields[#fields + 1] = templateOpts
end
if s.data and s.data ~= "{}" then
  fields[#fields + 1] = "data"
  fields[#fields + 1] = s.data
end
fields[#fields + 1] = "ic"
fields[#fields + 1] = stored[4] or 1
redis.call("DEL", schedulerKey)
redis.call("HSET", schedulerKey, unpack(fields))
redis.call("ZADD", repeatKey, millis, schedulerId)

local jobId, delay = addSchedulerIteration(k, schedulerId, millis, def.name, s.data or "{}",
  s.jobOpts, now)
return {jobId, delay}
`,
      INCLUDES,
    ),
  },
  addLog: {
    name: 'addLog',
    numberOfKeys: 2,
    keys: ['jobHash', 'jobLogs'],
    lua: inlineIncludes(
      `--[[
  Appends a log line to a job, keeping only the newest keepLogs lines when asked.
  KEYS[1] job hash  KEYS[2] job logs
  ARGV[1] jobId  ARGV[2] line  ARGV[3] keepLogs, or ""
  Returns the number of lines kept, or -1 when the job is missing.
]]
if redis.call("EXISTS", KEYS[1]) == 0 then
  return -1
end
local count = redis.call("RPUSH", KEYS[2], ARGV[2])
local keep = tonumber(ARGV[3])
if keep then
  redis.call("LTRIM", KEYS[2], -keep, -1)
  return math.min(keep, count)
end
return count
`,
      INCLUDES,
    ),
  },
  changeDelay: {
    name: 'changeDelay',
    numberOfKeys: 4,
    keys: ['delayed', 'meta', 'marker', 'events'],
    lua: inlineIncludes(
      `--[[
  Job.changeDelay: a delayed job becomes due ARGV[1] ms after now (a grouped one stays in
  Q group-delayed).

  KEYS[1] delayed  KEYS[2] meta  KEYS[3] marker  KEYS[4] events

  ARGV[1] delay (ms)  ARGV[2] now (ms)  ARGV[3] jobId  ARGV[4] job hash key

  Returns 0, -1 job missing, -3 job not delayed.
]]
--- @include "getMaxEvents"
--- @include "markers"
--- @include "scores"
--- @include "groups"

local delay = tonumber(ARGV[1])
local jobId = ARGV[3]
local jobKey = ARGV[4]
if redis.call("EXISTS", jobKey) == 0 then
  return -1
end
local delayedKey = KEYS[1]
if redis.call("ZREM", delayedKey, jobId) == 0 then
  delayedKey = baseOfKey(KEYS[1], "delayed") .. "group-delayed"
  if redis.call("ZREM", delayedKey, jobId) == 0 then
    return -3
  end
end

local dueTs = tonumber(ARGV[2]) + delay
redis.call("ZADD", delayedKey, delayedScore(delayedKey, dueTs), jobId)
redis.call("HSET", jobKey, "delay", delay)
redis.call("XADD", KEYS[4], "MAXLEN", "~", getMaxEvents(KEYS[2]), "*", "event", "delayed", "jobId", jobId,
  "delay", dueTs)
signalNextDelayed(KEYS[3], KEYS[1])
return 0
`,
      INCLUDES,
    ),
  },
  changePriority: {
    name: 'changePriority',
    numberOfKeys: 7,
    keys: ['wait', 'meta', 'prioritized', 'active', 'pc', 'marker', 'jobHash'],
    lua: inlineIncludes(
      `--[[
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
`,
      INCLUDES,
    ),
  },
  cleanJobsInSet: {
    name: 'cleanJobsInSet',
    numberOfKeys: 3,
    keys: ['state', 'events', 'repeat'],
    lua: inlineIncludes(
      `--[[
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
  Grouped jobs are cleaned with their state: \`wait\` goes on into every group's line and \`delayed\`
  into Q group-delayed once the state's own key is done (see GROUP_PHASE below for the cursor).

  KEYS[1] state (Q completed | failed | delayed | prioritized | wait | paused | active)
  KEYS[2] events  KEYS[3] repeat

  ARGV[1] Q  ARGV[2] cutoff ts (now - grace)  ARGV[3] max entries examined by this call (>= 1)
  ARGV[4] state  ARGV[5] cursor (0 on the first call)  ARGV[6] "1" to emit \`cleaned\` even for 0

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

-- Scans one list from its oldest end (the tail), skipping the \`skip\` entries earlier calls kept,
-- examining at most \`limit\`. Removed entries are blanked in place (indices stay valid during the
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

-- Scans a sorted set from its lowest score, skipping \`skip\` kept entries. Returns as scanList.
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
    -- Groups without waiting jobs cost a look each: at most \`budget\` looks per call.
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
`,
      INCLUDES,
    ),
  },
  commandWorker: {
    name: 'commandWorker',
    numberOfKeys: 1,
    keys: ['worker'],
    lua: inlineIncludes(
      `--[[
  Leaves a command for a live OxMQ worker, read on its next heartbeat.

  KEYS[1] worker (Q oxmq:worker:<workerId>, a hash)
  ARGV[1] command (\`quiet\` or \`resume\`)

  Returns 1 when the worker's record exists, 0 when no live worker has that id.
]]
if redis.call("EXISTS", KEYS[1]) == 0 then return 0 end
redis.call("HSET", KEYS[1], "command", ARGV[1])
return 1
`,
      INCLUDES,
    ),
  },
  countGroupedJobs: {
    name: 'countGroupedJobs',
    numberOfKeys: 1,
    keys: ['base'],
    lua: inlineIncludes(
      `--[[
  Counts the jobs of tenant groups that a plain state read misses: ready jobs in the groups'
  lines (part of the waiting state) and delayed ones in Q group-delayed (part of delayed). Read
  only, so it runs at maxmemory and in a pipeline of other reads. Its cost is one LLEN and two
  reads per group that has ready jobs (includes/groupedStateViews.lua).

  KEYS[1] base (Q, the queue key prefix with trailing colon)

  Returns {waiting, delayed, oldest}: oldest is the creation time (ms) of the longest-waiting
  job at the head of a group's line, or false when no group has a ready job.
]]
--- @include "groupedStateViews"

local waiting, delayed, oldest = groupedCounts(KEYS[1])
return {waiting, delayed, oldest}
`,
      INCLUDES,
    ),
  },
  drain: {
    name: 'drain',
    numberOfKeys: 6,
    keys: ['wait', 'paused', 'prioritized', 'delayed', 'repeat', 'pc'],
    lua: inlineIncludes(
      `--[[
  Removes waiting jobs (wait, legacy paused list, prioritized, and delayed when asked), at most
  ARGV[3] per call, deleting their keys. The pending iteration of every job scheduler is kept, so
  schedulers go on. No events are emitted on this queue (as bullmq's drain).
  A drained flow child leaves its parent's dependencies; a parent left without pending children
  is removed too when it is in this queue, or released to the front of its own queue's wait list
  otherwise (see removeJobDetached).
  Grouped jobs are drained too: every group's line (groups leave the ring as their lines empty)
  and, when asked, Q group-delayed. Group settings (meta), active sets and the groups:known
  registry stay, as the queue's own meta does.

  KEYS[1] wait  KEYS[2] paused (legacy list)  KEYS[3] prioritized  KEYS[4] delayed
  KEYS[5] repeat  KEYS[6] pc

  ARGV[1] Q  ARGV[2] "1" to drain delayed jobs too  ARGV[3] max jobs removed by this call

  Returns {removed, more}: more is 1 while removable jobs remain (the caller repeats).
]]
--- @include "removeJobDetached"
--- @include "schedulerIteration"
--- @include "batchedCall"
--- @include "groups"

local Q = ARGV[1]
local budget = tonumber(ARGV[3])
-- Each scheduler has at most one pending iteration, so reading that many extra entries per
-- structure is enough to always find \`budget\` removable ones when they exist.
local schedulers = redis.call("ZCARD", KEYS[5])
local removed = 0
local more = 0

local function removable(jobId)
  return not isCurrentSchedulerIteration(KEYS[5], jobId)
end

local function drainList(key)
  local ids = redis.call("LRANGE", key, 0, budget - removed + schedulers - 1)
  if #ids == 0 then
    return
  end
  local kept = {}
  for _, jobId in ipairs(ids) do
    if string.sub(jobId, 1, 2) == "0:" then
      -- a legacy marker: dropped, not a job
    elseif removed < budget and removable(jobId) then
      removeJobDetached(Q, jobId, true)
      removed = removed + 1
    else
      kept[#kept + 1] = jobId
    end
  end
  redis.call("LTRIM", key, #ids, -1)
  -- Put the kept ids back at the head in their original order.
  for i = #kept, 1, -5000 do
    local slice = {}
    for j = i, math.max(1, i - 4999), -1 do
      slice[#slice + 1] = kept[j]
    end
    redis.call("LPUSH", key, unpack(slice))
  end
  if redis.call("LLEN", key) > #kept or (#kept > 0 and removed >= budget) then
    more = 1
  end
end

local function drainSortedSet(key)
  local ids = redis.call("ZRANGE", key, 0, budget - removed + schedulers - 1)
  local gone = {}
  local keptCount = 0
  for _, jobId in ipairs(ids) do
    if removed < budget and removable(jobId) then
      removeJobDetached(Q, jobId, true)
      removed = removed + 1
      gone[#gone + 1] = jobId
    else
      keptCount = keptCount + 1
    end
  end
  batchedCall("ZREM", key, gone)
  if redis.call("ZCARD", key) > keptCount or (keptCount > 0 and removed >= budget) then
    more = 1
  end
end

local structures = {{KEYS[1], true}, {KEYS[2], true}, {KEYS[3], false}}
if ARGV[2] == "1" then
  structures[#structures + 1] = {KEYS[4], false}
end
for _, structure in ipairs(structures) do
  if removed >= budget then
    if redis.call(structure[2] and "LLEN" or "ZCARD", structure[1]) > 0 then
      more = 1
    end
  elseif structure[2] then
    drainList(structure[1])
  else
    drainSortedSet(structure[1])
  end
end

-- The groups' lines, in ring order. Each group in the ring has at least one waiting job, and at
-- most \`schedulers\` of them hold only kept iterations, so this many ring entries are enough.
local ringKey = Q .. "groups"
if removed >= budget then
  if redis.call("LLEN", ringKey) > 0 then
    more = 1
  end
else
  local gids = redis.call("LRANGE", ringKey, 0, budget - removed + schedulers - 1)
  local keptGroups = 0
  for _, gid in ipairs(gids) do
    if removed >= budget then
      more = 1
      break
    end
    local line = groupKey(Q, gid, "wait")
    drainList(line)
    if redis.call("LLEN", line) == 0 then
      redis.call("LREM", ringKey, 0, gid)
    else
      keptGroups = keptGroups + 1
    end
  end
  if redis.call("LLEN", ringKey) > keptGroups then
    more = 1
  end
end
if ARGV[2] == "1" then
  local groupDelayed = Q .. "group-delayed"
  if removed >= budget then
    if redis.call("ZCARD", groupDelayed) > 0 then
      more = 1
    end
  else
    drainSortedSet(groupDelayed)
  end
end

if redis.call("ZCARD", KEYS[3]) == 0 then
  redis.call("DEL", KEYS[6])
end
return {removed, more}
`,
      INCLUDES,
    ),
  },
  extendLocks: {
    name: 'extendLocks',
    numberOfKeys: 1,
    keys: ['stalled'],
    lua: inlineIncludes(
      `--[[
  Renews the locks of every job a worker is running, in one call.

  KEYS[1] stalled
  ARGV[1] Q  ARGV[2] JSON array of job ids  ARGV[3] JSON array of their tokens  ARGV[4] duration (ms)

  Returns the ids whose lock was gone or owned by another token.
]]
local Q = ARGV[1]
local ids = cjson.decode(ARGV[2])
local tokens = cjson.decode(ARGV[3])
local duration = ARGV[4]
local lost = {}
for i, jobId in ipairs(ids) do
  local lockKey = Q .. jobId .. ":lock"
  if redis.call("GET", lockKey) == tokens[i] then
    redis.call("SET", lockKey, tokens[i], "PX", duration)
    redis.call("SREM", KEYS[1], jobId)
  else
    table.insert(lost, jobId)
  end
end
return lost
`,
      INCLUDES,
    ),
  },
  getDependencyPage: {
    name: 'getDependencyPage',
    numberOfKeys: 1,
    keys: ['record'],
    lua: inlineIncludes(
      `--[[
  One page of a parent's pending children (\`<job>:dependencies\`, a set of full job keys) or of
  its processed children (\`<job>:processed\`, a hash: full job key -> return value JSON), with
  each listed child's job hash. Sets and hashes have no order of their own: the page is a window
  of SSCAN / HSCAN order, read with bounded steps and stopped as soon as the window is full.

  KEYS[1] record (the record key: \`<job>:dependencies\` or \`<job>:processed\`)

  ARGV[1] "set" | "hash"  ARGV[2] start (>= 0)  ARGV[3] end (-1: to the end)
  ARGV[4] SCAN COUNT hint per step

  Returns {total, {member1, value1 or false, hashFlat1}, {member2, ...}, ...}
  (hashFlat is {} when the child's hash no longer exists).
]]
local key = KEYS[1]
local isHash = ARGV[1] == "hash"
local start = tonumber(ARGV[2])
local stop = tonumber(ARGV[3])
local step = tonumber(ARGV[4])

local total
if isHash then
  total = redis.call("HLEN", key)
else
  total = redis.call("SCARD", key)
end

local reply = {total}
if total == 0 or (stop >= 0 and stop < start) then
  return reply
end

local index = 0
local cursor = "0"
repeat
  local scan
  if isHash then
    scan = redis.call("HSCAN", key, cursor, "COUNT", step)
  else
    scan = redis.call("SSCAN", key, cursor, "COUNT", step)
  end
  cursor = scan[1]
  local entries = scan[2]
  local width = 1
  if isHash then
    width = 2
  end
  for i = 1, #entries, width do
    if index >= start and (stop < 0 or index <= stop) then
      local member = entries[i]
      local value = false
      if isHash then
        value = entries[i + 1]
      end
      reply[#reply + 1] = {member, value, redis.call("HGETALL", member)}
    end
    index = index + 1
  end
until cursor == "0" or (stop >= 0 and index > stop)
return reply
`,
      INCLUDES,
    ),
  },
  getGroups: {
    name: 'getGroups',
    numberOfKeys: 1,
    keys: ['meta'],
    lua: inlineIncludes(
      `--[[
  Reads tenant groups for the console, in one atomic snapshot: per group its waiting jobs (its
  line), active jobs (its active set), paused flag, effective concurrency and rate limit (its own
  meta, else the queue-wide defaults in Q meta) and the ms until its rate limit lets a job start
  (0 when it may start one now or has no limit). Nothing is written.

  KEYS[1] Q meta

  ARGV[1] Q  ARGV[2] now (ms)  ARGV[3..] group ids

  Returns a flat array, 8 entries per group in the order asked:
  {gid, waiting, active, paused (0|1), concurrency ("" none), max ("" none), duration ("" none),
  rateLimitTtl, ...}.
]]
--- @include "groups"

local Q = ARGV[1]
local now = tonumber(ARGV[2])
local defaults = groupDefaults(Q)

-- groupRateLimitWait without its writes (no trimming of the log).
local function rateLimitTtl(gid, max, duration)
  local limiterKey = groupKey(Q, gid, "limiter")
  if tonumber(redis.call("GET", limiterKey) or "0") >= max then
    local ttl = redis.call("PTTL", limiterKey)
    if ttl > 0 then
      return ttl
    end
  end
  local logKey = limiterKey .. ":log"
  local from = now - duration
  if redis.call("ZCOUNT", logKey, from, "+inf") >= max then
    local oldest = redis.call("ZRANGEBYSCORE", logKey, from, "+inf", "WITHSCORES", "LIMIT", 0, 1)
    return math.max(1, tonumber(oldest[2]) + duration - now + 1)
  end
  return 0
end

local reply = {}
for i = 3, #ARGV do
  local gid = ARGV[i]
  local paused, concurrency, max, duration = groupSettings(Q, gid, defaults)
  local ttl = 0
  if max and duration then
    ttl = rateLimitTtl(gid, max, duration)
  end
  reply[#reply + 1] = gid
  reply[#reply + 1] = redis.call("LLEN", groupKey(Q, gid, "wait"))
  reply[#reply + 1] = redis.call("SCARD", groupKey(Q, gid, "active"))
  reply[#reply + 1] = paused and 1 or 0
  reply[#reply + 1] = concurrency and tostring(concurrency) or ""
  reply[#reply + 1] = (max and duration) and tostring(max) or ""
  reply[#reply + 1] = (max and duration) and tostring(duration) or ""
  reply[#reply + 1] = ttl
end
return reply
`,
      INCLUDES,
    ),
  },
  getJobState: {
    name: 'getJobState',
    numberOfKeys: 8,
    keys: [
      'completed',
      'failed',
      'delayed',
      'prioritized',
      'active',
      'wait',
      'paused',
      'waitingChildren',
    ],
    lua: inlineIncludes(
      `--[[
  The state of one job, looked up in the order bullmq's getState uses (needs LPOS, Redis 6.0.6+).

  KEYS[1] completed  KEYS[2] failed  KEYS[3] delayed  KEYS[4] prioritized
  KEYS[5] active     KEYS[6] wait    KEYS[7] paused (legacy list)  KEYS[8] waiting-children

  ARGV[1] jobId

  A job deep inside a long wait list (past LIST_END_WINDOW entries from both ends) is not
  looked up entry by entry: a job whose hash exists and that is in no other state is waiting.

  Returns "completed", "failed", "delayed" (Q delayed, or Q group-delayed for a grouped job),
  "prioritized", "active", "waiting" (wait, legacy paused list, or a grouped job's group line),
  "waiting-children" or "unknown".
]]
--- @include "listSearch"

local jobId = ARGV[1]
local Q = string.sub(KEYS[1], 1, #KEYS[1] - #"completed")
if redis.call("ZSCORE", KEYS[1], jobId) then
  return "completed"
end
if redis.call("ZSCORE", KEYS[2], jobId) then
  return "failed"
end
if redis.call("ZSCORE", KEYS[3], jobId) or redis.call("ZSCORE", Q .. "group-delayed", jobId) then
  return "delayed"
end
if redis.call("ZSCORE", KEYS[4], jobId) then
  return "prioritized"
end
if redis.call("LPOS", KEYS[5], jobId) then
  return "active"
end
-- The lists a waiting job can be in may hold a whole backlog: each is searched near its ends
-- only (includes/listSearch.lua), and "maybe" means "not near either end of a long list".
local function inList(key)
  local where = findNearListEnds(key, jobId)
  if where == "head" or where == "tail" then
    return "yes"
  end
  return where == "absent" and "no" or "maybe"
end
local inWait = inList(KEYS[6])
if inWait == "yes" then
  return "waiting"
end
local inPaused = inList(KEYS[7])
if inPaused == "yes" then
  return "waiting"
end
local gid = redis.call("HGET", Q .. jobId, "gid")
local inLine = "no"
if gid then
  inLine = inList(Q .. "group:" .. gid .. ":wait")
  if inLine == "yes" then
    return "waiting"
  end
end
if redis.call("ZSCORE", KEYS[8], jobId) then
  return "waiting-children"
end
-- In no other state, and not near the ends of a long list it could be in: an existing job is
-- deep inside that list (every job is in exactly one state), so it is waiting. Finding the
-- entry itself would cost a scan of up to the whole list.
if (inWait == "maybe" or inPaused == "maybe" or inLine == "maybe")
    and redis.call("EXISTS", Q .. jobId) == 1 then
  return "waiting"
end
return "unknown"
`,
      INCLUDES,
    ),
  },
  getJobsInStates: {
    name: 'getJobsInStates',
    numberOfKeys: 1,
    keys: ['base'],
    lua: inlineIncludes(
      `--[[
  Lists jobs of one or more states with their hashes, in the order bullmq's Queue.getJobs uses:
  each state's own [start, end] window, states concatenated in the given order. Lists (wait,
  paused, active) hold the newest job at the head, so ascending (oldest first) reads from the
  tail; sorted sets ascend by score. Ids without a hash and legacy "0:" markers are skipped, and
  the window is back-filled from the entries after it, at most ARGV[4] extra windows per state.

  Tenant groups' jobs are listed with their state (includes/groupedStateViews.lua): \`wait\` reads
  Q wait and then every ready group's line in group id order, each line from the same end;
  \`delayed\` merges Q delayed and Q group-delayed by score. Queues without groups read as before.

  KEYS[1] base (Q, the queue key prefix, with trailing colon; state keys are built from it)

  ARGV[1] start  ARGV[2] end (negative indexes count from the end, -1 the last)  ARGV[3] "1" ascending | "0" descending
  ARGV[4] max extra windows read to replace skipped ids
  ARGV[5] "jobs" | "ids" (Queue.getRanges: ids only, hashes neither read nor required)
  ARGV[6..] states: wait, paused, active, delayed, prioritized, completed, failed, waiting-children

  Returns a flat array {jobId1, hashFlat1, jobId2, hashFlat2, ...}, or {jobId1, jobId2, ...} for
  "ids"; an id appears at most once.
]]
--- @include "groupedStateViews"

local Q = KEYS[1]
local start = tonumber(ARGV[1])
local stop = tonumber(ARGV[2])
local ascending = ARGV[3] == "1"
local maxExtraWindows = tonumber(ARGV[4])
local idsOnly = ARGV[5] == "ids"
local listStates = {wait = true, paused = true, active = true}

-- The grouped view of a state, or nil when its plain key holds the whole state.
local function groupedView(state)
  if state == "wait" and redis.call("EXISTS", Q .. "groups") == 1 then
    local lines = waitingLines(Q)
    return {total = totalLength(lines), read = function(from, to)
      return readLines(lines, from, to, ascending)
    end}
  end
  if state == "delayed" and redis.call("EXISTS", Q .. "group-delayed") == 1 then
    local sets = {Q .. "delayed", Q .. "group-delayed"}
    return {total = redis.call("ZCARD", sets[1]) + redis.call("ZCARD", sets[2]),
      read = function(from, to)
        return readMergedSets(sets, from, to, not ascending)
      end}
  end
  return nil
end

local function readWindow(key, isList, from, to, view)
  if view then
    local a, b = absoluteWindow(from, to, view.total)
    if a == nil then
      return {}
    end
    return view.read(a, b)
  end
  if isList then
    if ascending then
      -- Index i from the tail is -(i + 1); to = -1 (the end) becomes index 0, the head.
      local first = -(to + 1)
      if first == 0 then
        first = 0 -- not -0, which Redis refuses as an index
      end
      local ids = redis.call("LRANGE", key, first, -(from + 1))
      local reversed = {}
      for i = #ids, 1, -1 do
        reversed[#reversed + 1] = ids[i]
      end
      return reversed
    end
    return redis.call("LRANGE", key, from, to)
  end
  if ascending then
    return redis.call("ZRANGE", key, from, to)
  end
  return redis.call("ZREVRANGE", key, from, to)
end

local result = {}
local seen = {}
for i = 6, #ARGV do
  local state = ARGV[i]
  local key = Q .. state
  local isList = listStates[state]
  local view = groupedView(state)
  -- A window with a negative index counts from the end: read it once, without back-filling.
  local wanted = nil
  if start >= 0 and stop >= 0 then
    wanted = stop - start + 1
  end
  if wanted == nil or wanted > 0 then
    local from, to = start, stop
    local found = 0
    local extraWindows = 0
    while true do
      local ids = readWindow(key, isList, from, to, view)
      for _, jobId in ipairs(ids) do
        if (wanted == nil or found < wanted) and not seen[jobId] and string.sub(jobId, 1, 2) ~= "0:" then
          if idsOnly then
            seen[jobId] = true
            found = found + 1
            result[#result + 1] = jobId
          end
          local hash = idsOnly and {} or redis.call("HGETALL", Q .. jobId)
          if #hash > 0 then
            seen[jobId] = true
            found = found + 1
            result[#result + 1] = jobId
            result[#result + 1] = hash
          end
        end
      end
      if wanted == nil or found >= wanted or #ids < (to - from + 1) or extraWindows >= maxExtraWindows then
        break
      end
      extraWindows = extraWindows + 1
      from = to + 1
      to = from + wanted - 1
    end
  end
end
return result
`,
      INCLUDES,
    ),
  },
  holdLease: {
    name: 'holdLease',
    numberOfKeys: 2,
    keys: ['lease', 'lastClaimedTurn'],
    lua: inlineIncludes(
      `--[[
  Takes or keeps a lease (one holder among many processes), and optionally claims a numbered
  turn under it: the holder of a periodic duty (the history sampler, the notifier) claims each
  turn once, so a turn is done once even when the lease changes hands inside it.

  KEYS[1] lease (string: the holder's id, PX ttl)
  KEYS[2] last claimed turn (string: a number; lives ARGV[5] ms)
  ARGV[1] holder id     ARGV[2] lease ttl (ms)
  ARGV[3] turn to claim, or "" to only take / keep the lease
  ARGV[4] "1" to give the lease up (ARGV[3] is then ignored), else "0"
  ARGV[5] how long the last claimed turn is remembered (ms)

  Returns {held, claimed}: held 1 when the caller holds the lease after the call (0 after a give
  up or when another holds it), claimed 1 when ARGV[3] is newer than the last claimed turn and
  is now the caller's.
]]
local holder = redis.call("GET", KEYS[1])
if ARGV[4] == "1" then
  if holder == ARGV[1] then
    redis.call("DEL", KEYS[1])
  end
  return {0, 0}
end
if holder and holder ~= ARGV[1] then
  return {0, 0}
end
redis.call("SET", KEYS[1], ARGV[1], "PX", ARGV[2])
if ARGV[3] == "" then
  return {1, 0}
end
local last = tonumber(redis.call("GET", KEYS[2]) or "-1")
local turn = tonumber(ARGV[3])
if turn <= last then
  return {1, 0}
end
redis.call("SET", KEYS[2], ARGV[3], "PX", ARGV[5])
return {1, 1}
`,
      INCLUDES,
    ),
  },
  moveJobFromActiveToWait: {
    name: 'moveJobFromActiveToWait',
    numberOfKeys: 9,
    keys: [
      'active',
      'wait',
      'stalled',
      'meta',
      'limiter',
      'prioritized',
      'marker',
      'events',
      'jobHash',
    ],
    lua: inlineIncludes(
      `--[[
  Returns a job whose processor hit a rate limit to the front of the line, without counting an
  attempt, and reports how long the limit still holds. A grouped job goes to the front of its
  group's line and frees its group slot.

  KEYS[1] active  KEYS[2] wait  KEYS[3] stalled  KEYS[4] meta  KEYS[5] limiter
  KEYS[6] prioritized  KEYS[7] marker  KEYS[8] events  KEYS[9] job hash

  ARGV[1] jobId  ARGV[2] token

  Returns the limiter's PTTL (0 when none), or -1 job missing, -2 / -6 lock errors.
]]
--- @include "getMaxEvents"
--- @include "isPausedOrMaxed"
--- @include "releaseJobLock"
--- @include "markers"
--- @include "groups"

local jobKey = KEYS[9]
local jobId = ARGV[1]
if redis.call("EXISTS", jobKey) == 0 then
  return -1
end
local lockResult = releaseJobLock(jobKey, KEYS[3], ARGV[2], jobId)
if lockResult < 0 then
  return lockResult
end
if redis.call("LREM", KEYS[1], 1, jobId) > 0 then
  local Q = baseOfKey(KEYS[2], "wait")
  local gid = leaveGroupActiveOf(Q, jobId)
  local priority = tonumber(redis.call("HGET", jobKey, "priority")) or 0
  if gid then
    pushGroupedJob(Q, gid, jobId, "RPUSH")
  elseif priority > 0 then
    -- Counter 0: ahead of every other job of the same priority.
    redis.call("ZADD", KEYS[6], priority * 4294967296, jobId)
  else
    redis.call("RPUSH", KEYS[2], jobId)
  end
  signalJobsReady(KEYS[7], isPausedOrMaxed(KEYS[4], KEYS[1]))
  redis.call("XADD", KEYS[8], "MAXLEN", "~", getMaxEvents(KEYS[4]), "*", "event", "waiting", "jobId", jobId, "prev", "active")
end
local ttl = redis.call("PTTL", KEYS[5])
if ttl > 0 then
  return ttl
end
return 0
`,
      INCLUDES,
    ),
  },
  moveJobsToWait: {
    name: 'moveJobsToWait',
    numberOfKeys: 6,
    keys: ['state', 'wait', 'meta', 'active', 'marker', 'events'],
    lua: inlineIncludes(
      `--[[
  Queue.retryJobs (failed | completed) and Queue.promoteJobs (delayed): moves up to ARGV[2] jobs
  with score <= ARGV[3] to the back of the wait list. Priority is ignored (as bullmq does) and the
  \`delay\` field is left as it is. Grouped jobs go to the back of their group's line; promoting
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
`,
      INCLUDES,
    ),
  },
  moveStalledJobsToWait: {
    name: 'moveStalledJobsToWait',
    numberOfKeys: 8,
    keys: ['stalled', 'wait', 'active', 'stalledCheck', 'meta', 'marker', 'events', 'repeat'],
    lua: inlineIncludes(
      `--[[
  Two-phase stalled-job check, throttled cluster-wide by the stalled-check key.
  Phase 1 judges the ids marked at the previous check: those still active without a lock are put
  back at the front of the wait list (with a deferred failure once they stalled too often); a
  grouped job at the front of its group's line, leaving its group's active set.
  Phase 2 marks every job active now, to be judged at the next check.

  KEYS[1] stalled  KEYS[2] wait  KEYS[3] active  KEYS[4] stalled-check
  KEYS[5] meta     KEYS[6] marker KEYS[7] events KEYS[8] repeat

  ARGV[1] maxStalledCount  ARGV[2] Q  ARGV[3] now  ARGV[4] stalledInterval (ms)

  Returns the ids recovered from a stall.
]]
--- @include "getMaxEvents"
--- @include "isPausedOrMaxed"
--- @include "markers"
--- @include "groups"

local Q = ARGV[2]
local maxStalledCount = tonumber(ARGV[1])

if redis.call("EXISTS", KEYS[4]) == 1 then
  return {}
end
redis.call("SET", KEYS[4], ARGV[3], "PX", ARGV[4])
redis.call("XTRIM", KEYS[7], "MAXLEN", "~", getMaxEvents(KEYS[5]))

local recovered = {}
local candidates = redis.call("SMEMBERS", KEYS[1])
redis.call("DEL", KEYS[1])
for _, jobId in ipairs(candidates) do
  if string.sub(jobId, 1, 2) == "0:" then
    redis.call("LREM", KEYS[3], 1, jobId)
  else
    local jobKey = Q .. jobId
    if redis.call("EXISTS", jobKey .. ":lock") == 0 and redis.call("LREM", KEYS[3], 1, jobId) > 0 then
      local stalledCount = redis.call("HINCRBY", jobKey, "stc", 1)
      -- Iterations of a live job scheduler are never failed for stalling.
      local schedulerId = redis.call("HGET", jobKey, "rjk")
      local isSchedulerJob = schedulerId and (redis.call("EXISTS", Q .. "repeat:" .. schedulerId) == 1
        or redis.call("ZSCORE", KEYS[8], schedulerId))
      if stalledCount > maxStalledCount and not isSchedulerJob then
        redis.call("HSET", jobKey, "defa", "job stalled more than allowable limit")
      end
      local gid = leaveGroupActiveOf(Q, jobId)
      if gid then
        pushGroupedJob(Q, gid, jobId, "RPUSH")
      else
        redis.call("RPUSH", KEYS[2], jobId)
      end
      signalJobsReady(KEYS[6], isPausedOrMaxed(KEYS[5], KEYS[3]))
      redis.call("XADD", KEYS[7], "*", "event", "waiting", "jobId", jobId, "prev", "active")
      redis.call("XADD", KEYS[7], "*", "event", "stalled", "jobId", jobId)
      table.insert(recovered, jobId)
    end
  end
end

-- Mark in slices: unpack has a stack limit.
local active = redis.call("LRANGE", KEYS[3], 0, -1)
for from = 1, #active, 5000 do
  redis.call("SADD", KEYS[1], unpack(active, from, math.min(from + 4999, #active)))
end
return recovered
`,
      INCLUDES,
    ),
  },
  moveToActive: {
    name: 'moveToActive',
    numberOfKeys: 9,
    keys: ['wait', 'active', 'prioritized', 'events', 'limiter', 'delayed', 'meta', 'pc', 'marker'],
    lua: inlineIncludes(
      `--[[
  Gives the calling worker its next job (locked with its token), promoting due delayed jobs first
  (grouped ones too). Ungrouped and tenant-grouped work take turns; see includes/fetchNextJob.lua
  and includes/groups.lua.

  KEYS[1] wait  KEYS[2] active  KEYS[3] prioritized  KEYS[4] events  KEYS[5] limiter
  KEYS[6] delayed  KEYS[7] meta  KEYS[8] pc  KEYS[9] marker

  ARGV[1] Q   ARGV[2] now (ms)
  ARGV[3] JSON worker table {token, lockDuration, limitMax?, limitDuration?, name?}

  Returns {jobHashFlat, jobId, 0, 0} or {0, 0, rateLimitTtl, nextWakeTs} (see fetchNextJob).
]]
--- @include "fetchNextJob"

local keys = {wait = KEYS[1], active = KEYS[2], prioritized = KEYS[3], events = KEYS[4],
  limiter = KEYS[5], delayed = KEYS[6], meta = KEYS[7], pc = KEYS[8], marker = KEYS[9]}
return fetchNextJob(keys, ARGV[1], tonumber(ARGV[2]), cjson.decode(ARGV[3]))
`,
      INCLUDES,
    ),
  },
  moveToActiveBatch: {
    name: 'moveToActiveBatch',
    numberOfKeys: 9,
    keys: ['wait', 'active', 'prioritized', 'events', 'limiter', 'delayed', 'meta', 'pc', 'marker'],
    lua: inlineIncludes(
      `--[[
  Gives the calling BatchWorker up to ARGV[4] jobs at once, all locked with its token, stopping
  before the sum of their data sizes passes ARGV[5] bytes (see includes/fetchJobBatch.lua).

  KEYS[1] wait  KEYS[2] active  KEYS[3] prioritized  KEYS[4] events  KEYS[5] limiter
  KEYS[6] delayed  KEYS[7] meta  KEYS[8] pc  KEYS[9] marker

  ARGV[1] Q   ARGV[2] now (ms)
  ARGV[3] JSON worker table {token, lockDuration, limitMax?, limitDuration?, name?}
  ARGV[4] batch size (1 or more)   ARGV[5] byte budget for the batch's data (0: none)

  Returns {{jobHashFlat...}, {jobId...}, 0, 0} or {0, 0, rateLimitTtl, nextWakeTs}.
]]
--- @include "fetchJobBatch"

local keys = {wait = KEYS[1], active = KEYS[2], prioritized = KEYS[3], events = KEYS[4],
  limiter = KEYS[5], delayed = KEYS[6], meta = KEYS[7], pc = KEYS[8], marker = KEYS[9]}
return fetchJobBatch(keys, ARGV[1], tonumber(ARGV[2]), cjson.decode(ARGV[3]),
  tonumber(ARGV[4]), tonumber(ARGV[5]))
`,
      INCLUDES,
    ),
  },
  moveToDelayed: {
    name: 'moveToDelayed',
    numberOfKeys: 7,
    keys: ['marker', 'active', 'delayed', 'jobHash', 'events', 'meta', 'stalled'],
    lua: inlineIncludes(
      `--[[
  Moves an active job to the delayed set: a retry with backoff, or a processor postponing its job.
  A grouped job goes to Q group-delayed instead (promoted into its group's line when due) and
  frees its group slot.

  KEYS[1] marker  KEYS[2] active  KEYS[3] delayed  KEYS[4] job hash  KEYS[5] events
  KEYS[6] meta    KEYS[7] stalled

  ARGV[1] jobId  ARGV[2] now  ARGV[3] token  ARGV[4] delay (ms, from now)
  ARGV[5] "1" to leave attemptsMade alone (postponed, not failed)
  ARGV[6] JSON array of fields to write [k1, v1, ...]

  Returns 0, or -1 job missing, -2 lock missing, -3 not active, -6 lock owned by another token.
]]
--- @include "getMaxEvents"
--- @include "leaveActive"
--- @include "markers"
--- @include "scores"
--- @include "groups"

local jobKey = KEYS[4]
local jobId = ARGV[1]
local delay = tonumber(ARGV[4])

local left = leaveActive(jobKey, KEYS[2], KEYS[7], jobId, ARGV[3], ARGV[6])
if left < 0 then
  return left
end

local dueTs = tonumber(ARGV[2]) + delay
if ARGV[5] ~= "1" then
  redis.call("HINCRBY", jobKey, "atm", 1)
end
redis.call("HSET", jobKey, "delay", delay)
local Q = baseOfKey(KEYS[3], "delayed")
if leaveGroupActiveOf(Q, jobId) then
  redis.call("ZADD", Q .. "group-delayed", delayedScore(Q .. "group-delayed", dueTs), jobId)
else
  redis.call("ZADD", KEYS[3], delayedScore(KEYS[3], dueTs), jobId)
end
redis.call("XADD", KEYS[5], "MAXLEN", "~", getMaxEvents(KEYS[6]), "*", "event", "delayed", "jobId", jobId, "delay", dueTs)
signalNextDelayed(KEYS[1], KEYS[3])
return 0
`,
      INCLUDES,
    ),
  },
  moveToFinished: {
    name: 'moveToFinished',
    numberOfKeys: 13,
    keys: [
      'wait',
      'active',
      'prioritized',
      'events',
      'stalled',
      'limiter',
      'delayed',
      'meta',
      'pc',
      'marker',
      'target',
      'jobHash',
      'metrics',
    ],
    lua: inlineIncludes(
      `--[[
  Completes or fails an active job, optionally handing the same worker its next job.

  KEYS[1] wait      KEYS[5] stalled   KEYS[9]  pc
  KEYS[2] active    KEYS[6] limiter   KEYS[10] marker
  KEYS[3] prioritized KEYS[7] delayed KEYS[11] target (completed | failed)
  KEYS[4] events    KEYS[8] meta      KEYS[12] job hash   KEYS[13] metrics (of the target)

  ARGV[1] jobId           ARGV[2] now (becomes finishedOn)
  ARGV[3] "returnvalue" | "failedReason"        ARGV[4] its value
  ARGV[5] "completed" | "failed"                ARGV[6] fetch next "1" | "0"
  ARGV[7] Q               ARGV[8] token
  ARGV[9] JSON keep rule {count, age?, limit?} (count -1 keeps everything, 0 deletes the job;
          a deleted or trimmed job leaves its parent's dependencies, maybe releasing the parent)
  ARGV[10] JSON worker table for fetch-next {token, lockDuration, limitMax?, limitDuration?, name?}
  ARGV[11] max metrics data points, or "" when metrics are off
  ARGV[12] JSON array of fields to write first [k1, v1, ...] (failures: failedReason, stacktrace)
  ARGV[13] attempts allowed (opts.attempts, 0 when absent)

  A grouped job (hash field \`gid\`) also leaves its group's active set.

  Returns 0, a next-job tuple (see fetchNextJob), or a negative error code:
  -1 job missing, -2 lock missing, -3 not active, -4 pending children, -6 lock owned by another
  token, -9 a child failed with failParentOnFailure.
]]
--- @include "getMaxEvents"
--- @include "finishActiveJob"
--- @include "trimFinishedJobs"
--- @include "afterFinish"
--- @include "fetchNextJob"

local now = tonumber(ARGV[2])
local Q = ARGV[7]
local keep = cjson.decode(ARGV[9])

local code = finishActiveJob({active = KEYS[2], stalled = KEYS[5], events = KEYS[4], finished = KEYS[11]}, Q, {
  jobId = ARGV[1], token = ARGV[8], now = now, target = ARGV[5], field = ARGV[3], value = ARGV[4],
  fieldsJson = ARGV[12], keepCount = keep.count, attempts = tonumber(ARGV[13]),
  metricsKey = ARGV[11] ~= "" and KEYS[13] or nil, metricsMax = tonumber(ARGV[11])})
if code < 0 then
  return code
end
if keep.count ~= 0 then
  trimFinishedJobs(KEYS[11], Q, now, keep)
end
redis.call("XTRIM", KEYS[4], "MAXLEN", "~", getMaxEvents(KEYS[8]))

local result = nil
if ARGV[6] == "1" then
  local keys = {wait = KEYS[1], active = KEYS[2], prioritized = KEYS[3], events = KEYS[4],
    limiter = KEYS[6], delayed = KEYS[7], meta = KEYS[8], pc = KEYS[9], marker = KEYS[10]}
  result = fetchNextJob(keys, Q, now, cjson.decode(ARGV[10]))
end

local fetchedJob = result ~= nil and result[1] ~= 0
if not fetchedJob then
  afterFinish({wait = KEYS[1], active = KEYS[2], prioritized = KEYS[3], events = KEYS[4],
    meta = KEYS[8], marker = KEYS[10]}, Q)
end

if result then
  return result
end
return 0
`,
      INCLUDES,
    ),
  },
  moveToFinishedBatch: {
    name: 'moveToFinishedBatch',
    numberOfKeys: 12,
    keys: [
      'wait',
      'active',
      'prioritized',
      'events',
      'stalled',
      'limiter',
      'delayed',
      'meta',
      'pc',
      'marker',
      'completed',
      'metricsCompleted',
    ],
    lua: inlineIncludes(
      `--[[
  Completes the jobs of a BatchWorker's batch in one call, each exactly as moveToFinished
  completes one (events, parents, deduplication, metrics, removeOnComplete), then optionally
  hands the worker its next batch. The finished set and the events stream are trimmed once per
  call, not once per job, and the writes every job shares are made once for all (see
  includes/finishJobsTogether.lua).

  KEYS[1] wait      KEYS[5] stalled   KEYS[9]  pc
  KEYS[2] active    KEYS[6] limiter   KEYS[10] marker
  KEYS[3] prioritized KEYS[7] delayed KEYS[11] completed
  KEYS[4] events    KEYS[8] meta      KEYS[12] metrics:completed

  ARGV[1] Q   ARGV[2] now (becomes finishedOn)   ARGV[3] the batch's lock token
  ARGV[4] JSON array of [jobId, returnvalue JSON, keep rule JSON, lock token?] (see
          moveToFinished-13.lua); a job's own token, when given, wins over ARGV[3] (a Worker
          completes jobs fetched by different calls together)
  ARGV[5] max metrics data points, or "" when metrics are off
  ARGV[6] fetch the next batch "1" | "0"
  ARGV[7] JSON worker table for the next batch {token, lockDuration, limitMax?, ...}
  ARGV[8] next batch size   ARGV[9] next batch byte budget (0: none)

  Returns {{code per job, in order: 0 or a negative error code of moveToFinished}, next} where
  next is 0 or fetchJobBatch's reply.
]]
--- @include "getMaxEvents"
--- @include "finishActiveJob"
--- @include "finishJobsTogether"
--- @include "trimFinishedJobs"
--- @include "afterFinish"
--- @include "fetchJobBatch"

local Q = ARGV[1]
local now = tonumber(ARGV[2])
local k = {active = KEYS[2], stalled = KEYS[5], events = KEYS[4], finished = KEYS[11]}
local metricsMax = tonumber(ARGV[5])

local entries = cjson.decode(ARGV[4])
local together = startFinishingTogether(Q, entries, string.format("%.0f", now))
local codes = {}
local rules = {}
-- The jobs of a call usually share one keep rule: decoded once per distinct rule.
local decodedRules = {}
for i, entry in ipairs(entries) do
  local keep = decodedRules[entry[3]]
  if not keep then
    keep = cjson.decode(entry[3])
    decodedRules[entry[3]] = keep
  end
  together.lockOwner = together.owners[i]
  codes[i] = finishActiveJob(k, Q, {
    jobId = entry[1], token = entry[4] or ARGV[3], now = now, target = "completed", field = "returnvalue",
    value = entry[2], fieldsJson = "[]", keepCount = keep.count, attempts = 0}, together)
  if codes[i] == 0 and keep.count ~= 0 then
    rules[entry[3]] = keep
  end
end
endFinishingTogether(together, k, metricsMax and {key = KEYS[12], max = metricsMax}, now)
-- Jobs of one batch usually share one keep rule: the finished set is trimmed once per rule.
for _, keep in pairs(rules) do
  trimFinishedJobs(KEYS[11], Q, now, keep)
end
redis.call("XTRIM", KEYS[4], "MAXLEN", "~", getMaxEvents(KEYS[8]))

local nextBatch = 0
if ARGV[6] == "1" then
  local keys = {wait = KEYS[1], active = KEYS[2], prioritized = KEYS[3], events = KEYS[4],
    limiter = KEYS[6], delayed = KEYS[7], meta = KEYS[8], pc = KEYS[9], marker = KEYS[10]}
  nextBatch = fetchJobBatch(keys, Q, now, cjson.decode(ARGV[7]), tonumber(ARGV[8]), tonumber(ARGV[9]))
end

local fetchedJob = nextBatch ~= 0 and nextBatch[1] ~= 0
if not fetchedJob then
  afterFinish({wait = KEYS[1], active = KEYS[2], prioritized = KEYS[3], events = KEYS[4],
    meta = KEYS[8], marker = KEYS[10]}, Q)
end
return {codes, nextBatch}
`,
      INCLUDES,
    ),
  },
  moveToWaitingChildren: {
    name: 'moveToWaitingChildren',
    numberOfKeys: 8,
    keys: [
      'active',
      'waitingChildren',
      'jobHash',
      'jobDependencies',
      'jobUnsuccessful',
      'stalled',
      'events',
      'meta',
    ],
    lua: inlineIncludes(
      `--[[
  job.moveToWaitingChildren: a running job parks itself in waiting-children until its pending
  children finish (docs/redis-keys.md). Nothing changes unless the job still has a pending child
  (or, when ARGV[2] names one, unless that child is pending): a child that finished before this
  call has already left the dependencies, so the job simply keeps running.
  The checks (lock, active) come before any write, so a refused call leaves the job as it was.

  KEYS[1] active  KEYS[2] waiting-children  KEYS[3] job hash  KEYS[4] job:dependencies
  KEYS[5] job:unsuccessful  KEYS[6] stalled  KEYS[7] events  KEYS[8] meta

  ARGV[1] lock token ("0": the caller holds no lock)  ARGV[2] full key of one child, or ""
  ARGV[3] now (ms; the waiting-children score)  ARGV[4] jobId

  Returns 0 moved, 1 nothing pending (still active), -1 job missing, -2 lock missing,
  -6 lock held by another token, -3 job not active, -9 a child failed with failParentOnFailure.
]]
--- @include "getMaxEvents"
--- @include "releaseJobLock"
--- @include "groups"

local jobKey = KEYS[3]
local jobId = ARGV[4]
local token = ARGV[1]

if redis.call("EXISTS", jobKey) == 0 then
  return -1
end
if redis.call("ZCARD", KEYS[5]) ~= 0 then
  return -9
end

local pending
if ARGV[2] ~= "" then
  pending = redis.call("SISMEMBER", KEYS[4], ARGV[2]) == 1
else
  pending = redis.call("SCARD", KEYS[4]) > 0
end
if not pending then
  return 1
end

if token ~= "0" then
  local owner = redis.call("GET", jobKey .. ":lock")
  if not owner then
    return -2
  end
  if owner ~= token then
    return -6
  end
end
if redis.call("LREM", KEYS[1], -1, jobId) == 0 then
  return -3
end
releaseJobLock(jobKey, KEYS[6], token, jobId)
-- A grouped job waiting for children holds no group slot.
leaveGroupActiveOf(baseOfKey(KEYS[1], "active"), jobId)

redis.call("ZADD", KEYS[2], tonumber(ARGV[3]), jobId)
redis.call("XADD", KEYS[7], "MAXLEN", "~", getMaxEvents(KEYS[8]), "*", "event", "waiting-children",
  "jobId", jobId, "prev", "active")
return 0
`,
      INCLUDES,
    ),
  },
  obliterate: {
    name: 'obliterate',
    numberOfKeys: 10,
    keys: [
      'meta',
      'active',
      'delayed',
      'repeat',
      'completed',
      'wait',
      'paused',
      'prioritized',
      'failed',
      'waitingChildren',
    ],
    lua: inlineIncludes(
      `--[[
  Deletes a paused queue with all its jobs and schedulers, at most ARGV[2] jobs (or schedulers)
  per call; the caller repeats while the reply is 1. Once every structure is empty the queue's own
  keys go too. Each removed job drops the deduplication key it owns (bullmq 6.7.0 does the same);
  deduplication keys that no job owns (\`de:*\`, \`dn:*\`) are left alone, as bullmq leaves them:
  finding them would need a SCAN, and they expire or are recovered as stale by the next add.
  Removed flow children leave their parents' dependencies ("hard" mode: a parent left without
  pending children is removed with them in this queue, or released to its own wait list in
  another queue; see removeJobDetached).
  Children in other queues of a removed parent keep a \`parentKey\` to a job that no longer exists
  (as in bullmq).
  Tenant groups go too: Q group-delayed with its jobs, then group by group (from Q groups:known)
  its line with its jobs and every key of the group, each group counting one against the budget;
  at the end Q groups, Q groups:turn and Q groups:known. OxMQ's history of the queue (the hashes
  listed in Q oxmq:history) goes at the end too.

  KEYS[1] meta  KEYS[2] active  KEYS[3] delayed  KEYS[4] repeat  KEYS[5] completed
  KEYS[6] wait  KEYS[7] paused (legacy list)  KEYS[8] prioritized  KEYS[9] failed
  KEYS[10] waiting-children

  ARGV[1] Q  ARGV[2] max jobs removed by this call  ARGV[3] "1" to remove active jobs too

  Returns 0 when the queue is gone, 1 when more remains, -1 queue not paused,
  -2 active jobs and no force.
]]
--- @include "removeJobDetached"
--- @include "batchedCall"
--- @include "groups"

local Q = ARGV[1]
local budget = tonumber(ARGV[2])

if redis.call("HEXISTS", KEYS[1], "paused") == 0 then
  return -1
end
if ARGV[3] ~= "1" and redis.call("LLEN", KEYS[2]) > 0 then
  return -2
end

local function removeFromList(key)
  if budget <= 0 then
    return
  end
  local ids = redis.call("LRANGE", key, 0, budget - 1)
  for _, jobId in ipairs(ids) do
    if string.sub(jobId, 1, 2) ~= "0:" then
      removeJobDetached(Q, jobId, true)
    end
  end
  redis.call("LTRIM", key, #ids, -1)
  budget = budget - #ids
end

local function removeFromSortedSet(key)
  if budget <= 0 then
    return
  end
  local ids = redis.call("ZRANGE", key, 0, budget - 1)
  for _, jobId in ipairs(ids) do
    removeJobDetached(Q, jobId, true)
  end
  batchedCall("ZREM", key, ids)
  budget = budget - #ids
end

local function removeSchedulers(key)
  if budget <= 0 then
    return
  end
  local ids = redis.call("ZRANGE", key, 0, budget - 1)
  for _, schedulerId in ipairs(ids) do
    redis.call("DEL", Q .. "repeat:" .. schedulerId)
  end
  batchedCall("ZREM", key, ids)
  budget = budget - #ids
end

removeFromList(KEYS[2])
removeFromSortedSet(KEYS[3])
removeSchedulers(KEYS[4])
removeFromSortedSet(KEYS[5])
removeFromList(KEYS[6])
removeFromList(KEYS[7])
removeFromSortedSet(KEYS[8])
removeFromSortedSet(KEYS[9])
removeFromSortedSet(KEYS[10])
removeFromSortedSet(Q .. "group-delayed")

-- Group by group: its line's jobs, then (once the line is empty) the group's own keys.
local knownKey = Q .. "groups:known"
while budget > 0 do
  local gid = redis.call("ZRANGE", knownKey, 0, 0)[1]
  if not gid then
    break
  end
  removeFromList(groupKey(Q, gid, "wait"))
  if budget > 0 then
    deleteGroupKeys(Q, gid)
    redis.call("ZREM", knownKey, gid)
    budget = budget - 1
  end
end

-- Every structure stops only when it is empty or the budget is spent.
if budget <= 0 then
  return 1
end

local historyIndex = Q .. "oxmq:history"
batchedCall("DEL", historyIndex, redis.call("ZRANGE", historyIndex, 0, -1))
redis.call("DEL", historyIndex)

redis.call("DEL", Q .. "events", Q .. "stalled-check", Q .. "stalled", Q .. "id", Q .. "pc",
  Q .. "marker", Q .. "limiter", Q .. "limiter:log", Q .. "delay", Q .. "priority",
  Q .. "metrics:completed", Q .. "metrics:completed:data",
  Q .. "metrics:failed", Q .. "metrics:failed:data", Q .. "groups", Q .. "groups:turn",
  Q .. "groups:known", KEYS[1])
return 0
`,
      INCLUDES,
    ),
  },
  pause: {
    name: 'pause',
    numberOfKeys: 7,
    keys: ['meta', 'marker', 'events', 'wait', 'paused', 'prioritized', 'delayed'],
    lua: inlineIncludes(
      `--[[
  Pauses or resumes a queue. Paused (bullmq 6) means meta.paused exists: jobs stay in wait, and
  the wake-up marker is dropped so blocked workers find nothing. Resuming also migrates a legacy
  \`paused\` list (bullmq 5 moved wait there) back into wait, at most ARGV[3] ids per call; those
  jobs were waiting longer, so they go to the tail (front of the line) in their own order.

  KEYS[1] meta  KEYS[2] marker  KEYS[3] events  KEYS[4] wait  KEYS[5] paused (legacy list)
  KEYS[6] prioritized  KEYS[7] delayed

  ARGV[1] "pause" | "resume"  ARGV[2] "1" to emit the paused/resumed event
  ARGV[3] max legacy ids migrated per call

  Returns the number of legacy \`paused\` ids still to migrate (the caller repeats with ARGV[2] "0"
  until 0); always 0 for pause.
]]
--- @include "markers"

if ARGV[1] == "pause" then
  redis.call("HSET", KEYS[1], "paused", 1)
  redis.call("DEL", KEYS[2])
  if ARGV[2] == "1" then
    redis.call("XADD", KEYS[3], "*", "event", "paused")
  end
  return 0
end

redis.call("HDEL", KEYS[1], "paused")
local remaining = 0
local legacy = redis.call("LLEN", KEYS[5])
if legacy > 0 then
  if redis.call("EXISTS", KEYS[4]) == 0 then
    redis.call("RENAME", KEYS[5], KEYS[4])
  else
    local chunk = tonumber(ARGV[3])
    local ids = redis.call("LRANGE", KEYS[5], 0, chunk - 1)
    redis.call("RPUSH", KEYS[4], unpack(ids))
    redis.call("LTRIM", KEYS[5], #ids, -1)
    remaining = legacy - #ids
  end
end

local Q = string.sub(KEYS[4], 1, #KEYS[4] - #"wait")
if redis.call("LLEN", KEYS[4]) + redis.call("ZCARD", KEYS[6]) + redis.call("LLEN", Q .. "groups") > 0 then
  signalJobsReady(KEYS[2], false)
else
  signalNextDelayed(KEYS[2], KEYS[7])
end
if ARGV[2] == "1" then
  redis.call("XADD", KEYS[3], "*", "event", "resumed")
end
return remaining
`,
      INCLUDES,
    ),
  },
  pauseJobScheduler: {
    name: 'pauseJobScheduler',
    numberOfKeys: 6,
    keys: ['repeat', 'delayed', 'prioritized', 'wait', 'events', 'meta'],
    lua: inlineIncludes(
      `--[[
  Pauses a job scheduler (Queue.pauseJobScheduler, an OxMQ extension; docs/redis-keys.md): takes
  its pending iteration out if it has not started yet (delayed, prioritized or waiting, announced
  with a \`removed\` event) and marks \`Q repeat:<id>\` paused with OxMQ-only fields that bullmq
  ignores: \`oxmq.pausedAt\` (ms) and \`oxmq.nextCount\`, the \`repeat.count\` the next iteration will
  carry on resume, so a \`limit\` still counts the iterations already made. The score in \`Q repeat\`
  is kept: bullmq still lists the scheduler, with the time of the run that was taken out. An
  iteration already running finishes normally; OxMQ's updateJobScheduler sees the mark and
  creates no successor. Pausing a paused scheduler takes out any iteration that appeared since
  (a bullmq worker does not know the mark) and keeps the first pause time.

  KEYS[1] repeat  KEYS[2] delayed  KEYS[3] prioritized  KEYS[4] wait  KEYS[5] events
  KEYS[6] meta

  ARGV[1] scheduler id  ARGV[2] Q (with trailing colon)  ARGV[3] now (ms)

  Returns 0 when there is no such scheduler, 1 when it is paused now, 2 when it already was.
]]
--- @include "schedulerJobs"
--- @include "getMaxEvents"

local repeatKey = KEYS[1]
local schedulerId = ARGV[1]
local schedulerKey = repeatKey .. ":" .. schedulerId
local k = {base = ARGV[2], delayed = KEYS[2], prioritized = KEYS[3], wait = KEYS[4]}

local millis = tonumber(redis.call("ZSCORE", repeatKey, schedulerId))
if not millis or redis.call("EXISTS", schedulerKey) == 0 then
  return 0
end

-- The repeat.count an iteration carries (nil when its opts are unreadable or it is gone).
local function iterationCount(jobId)
  local raw = redis.call("HGET", k.base .. jobId, "opts")
  if not raw then
    return nil
  end
  local ok, opts = pcall(cjson.decode, raw)
  if not ok or type(opts) ~= "table" or type(opts["repeat"]) ~= "table" then
    return nil
  end
  return tonumber(opts["repeat"]["count"])
end

local jobId = schedulerIterationId(schedulerId, millis)
local state = pendingIterationState(k, jobId)
local nextCount
if state then
  -- It never ran: on resume its successor takes its number.
  nextCount = iterationCount(jobId)
  removePendingIteration(k, jobId, state)
  redis.call("XADD", KEYS[5], "MAXLEN", "~", getMaxEvents(KEYS[6]), "*", "event",
    "removed", "jobId", jobId, "prev", state)
else
  -- Running or finished already: the next one is the one after it.
  local count = iterationCount(jobId)
  if count then
    nextCount = count + 1
  end
end

local already = redis.call("HEXISTS", schedulerKey, "oxmq.pausedAt") == 1
if not already then
  redis.call("HSET", schedulerKey, "oxmq.pausedAt", ARGV[3])
end
if nextCount and (not already or state) then
  redis.call("HSET", schedulerKey, "oxmq.nextCount", nextCount)
end
if already then
  return 2
end
return 1
`,
      INCLUDES,
    ),
  },
  promote: {
    name: 'promote',
    numberOfKeys: 8,
    keys: ['delayed', 'wait', 'meta', 'prioritized', 'active', 'pc', 'events', 'marker'],
    lua: inlineIncludes(
      `--[[
  Job.promote: a delayed job runs now, at the back of the wait list (or in prioritized); a
  grouped one (in Q group-delayed) at the back of its group's line.

  KEYS[1] delayed  KEYS[2] wait  KEYS[3] meta  KEYS[4] prioritized  KEYS[5] active  KEYS[6] pc
  KEYS[7] events  KEYS[8] marker

  ARGV[1] Q  ARGV[2] jobId

  Returns 0, or -3 when the job is not delayed.
]]
--- @include "isPausedOrMaxed"
--- @include "enqueueReadyJob"

local jobId = ARGV[2]
local jobKey = ARGV[1] .. jobId
if redis.call("ZREM", KEYS[1], jobId) == 0
    and redis.call("ZREM", ARGV[1] .. "group-delayed", jobId) == 0 then
  return -3
end

-- A legacy "0:" marker at the head would otherwise sit in front of the promoted job.
local head = redis.call("LINDEX", KEYS[2], 0)
if head and string.sub(head, 1, 2) == "0:" then
  redis.call("LPOP", KEYS[2])
end

local priority = tonumber(redis.call("HGET", jobKey, "priority")) or 0
enqueueReadyJob(KEYS[2], KEYS[4], KEYS[6], KEYS[8], jobId, priority, "LPUSH", isPausedOrMaxed(KEYS[3], KEYS[5]))
redis.call("XADD", KEYS[7], "*", "event", "waiting", "jobId", jobId, "prev", "delayed")
redis.call("HSET", jobKey, "delay", 0)
return 0
`,
      INCLUDES,
    ),
  },
  readJobWindow: {
    name: 'readJobWindow',
    numberOfKeys: 2,
    keys: ['state', 'base'],
    lua: inlineIncludes(
      `--[[
  Reads one window of a state's jobs for the console's search and export: the ids at
  [offset, offset + count) from one end of the state's list or sorted set, and for each id the
  asked hash fields, sized first so a huge job is never copied into the reply.

  Read-only. One call touches at most \`count\` jobs (the caller keeps it to a few hundred), so it
  runs in a few milliseconds: a big state is read in many calls, and other clients run between
  them. Doing the window and the reads in one call halves the round trips of a pipelined scan and
  sizes each job with no reply per field.

  The waiting and delayed states include the tenant groups' jobs (includes/groupedStateViews.lua):
  a window of Q wait walks on into every ready group's line (group id order), one of Q delayed
  into Q group-delayed; \`length\` counts them all.

  KEYS[1] state (the state's key: wait / active list, or a sorted set such as completed)
  KEYS[2] base (Q, the queue key prefix with trailing colon; a job's hash is Q .. id)

  ARGV[1] "list" or "zset"
  ARGV[2] "head" (list index 0 on, zset lowest score first) or "tail" (the other end)
  ARGV[3] offset from that end
  ARGV[4] count
  ARGV[5] bytes this call may read in all; it stops before the first job that does not fit
  ARGV[6] bytes one job may have at most; a larger one is passed over, never read
  ARGV[7] n: how many of the fields that follow are sized (the first n), the rest read unsized
  ARGV[8..] field names

  Returns { length of the state, ids looked at, then per id looked at: id, mark, and for mark
  "r" the size of its sized fields and one value per field (false when absent) }. Marks: "r"
  read, "g" gone (no hash), "L" too large (followed by its size). Fewer ids than the window when the state ended or the byte
  budget did (the caller compares with the window it asked for).
]]
--- @include "groupedStateViews"

local stateKey, Q = KEYS[1], KEYS[2]
local kind, fromEnd = ARGV[1], ARGV[2]
local offset, count = tonumber(ARGV[3]), tonumber(ARGV[4])
local bytesLeft, jobMax = tonumber(ARGV[5]), tonumber(ARGV[6])
local sizedCount = tonumber(ARGV[7])
local fields = {}
for i = 8, #ARGV do
  fields[#fields + 1] = ARGV[i]
end

local ids, length
if stateKey == Q .. "wait" and redis.call("EXISTS", Q .. "groups") == 1 then
  local lines = waitingLines(Q)
  length = totalLength(lines)
  ids = readLines(lines, offset, offset + count - 1, fromEnd == "tail")
elseif stateKey == Q .. "delayed" and redis.call("EXISTS", Q .. "group-delayed") == 1 then
  local sets = {stateKey, Q .. "group-delayed"}
  length = redis.call("ZCARD", sets[1]) + redis.call("ZCARD", sets[2])
  ids = readSetsInTurn(sets, offset, offset + count - 1, fromEnd == "tail")
elseif kind == "list" then
  length = redis.call("LLEN", stateKey)
  if fromEnd == "head" then
    ids = redis.call("LRANGE", stateKey, offset, offset + count - 1)
  else
    ids = redis.call("LRANGE", stateKey, -(offset + count), -(offset + 1))
    -- LRANGE answers head to tail; from the tail the window reads backwards.
    local reversed = {}
    for i = #ids, 1, -1 do
      reversed[#reversed + 1] = ids[i]
    end
    ids = reversed
  end
else
  length = redis.call("ZCARD", stateKey)
  if fromEnd == "head" then
    ids = redis.call("ZRANGE", stateKey, offset, offset + count - 1)
  else
    ids = redis.call("ZREVRANGE", stateKey, offset, offset + count - 1)
  end
end

local out = {length, 0}
local looked = 0
for _, id in ipairs(ids) do
  local key = Q .. id
  local size = 0
  for f = 1, sizedCount do
    size = size + redis.call("HSTRLEN", key, fields[f])
  end
  if size > jobMax then
    out[#out + 1] = id
    out[#out + 1] = "L"
    out[#out + 1] = size
  elseif size > bytesLeft then
    break
  else
    local values = redis.call("HMGET", key, unpack(fields))
    local present = false
    for f = 1, #fields do
      if values[f] then
        present = true
      else
        values[f] = false
      end
    end
    out[#out + 1] = id
    if present then
      out[#out + 1] = "r"
      out[#out + 1] = size
      for f = 1, #fields do
        out[#out + 1] = values[f]
      end
      bytesLeft = bytesLeft - size
    else
      out[#out + 1] = "g"
    end
  end
  looked = looked + 1
end
out[2] = looked
return out
`,
      INCLUDES,
    ),
  },
  readTogether: {
    name: 'readTogether',
    numberOfKeys: 1,
    keys: ['route'],
    lua: inlineIncludes(
      `--[[
  Runs a batch of read commands as one step, where a MULTI of the same reads would do: Redis at
  maxmemory (noeviction) refuses every command queued in a MULTI, reads included, but lets a
  script run until its first write, and this one never writes. So an operator can still list and
  count jobs, and check a queue, when Redis is full (docs/reliability.md). No other client's
  command runs between the reads, so they see one moment: a job moving between two states is
  never read in both or in neither.

  Only the commands named below run; any other name fails the whole call before anything is read.
  The caller keeps the batch small (a window of ids, a few keys), as it would a MULTI.

  KEYS[1] route (a key in the slot of every key read: Redis Cluster sends the call there; the script does not read it)

  ARGV[1] the first command's argument count n, ARGV[2] its name, ARGV[3..2+n] its arguments,
  then the next command the same way, to the end of ARGV

  Returns one reply per command, in order; a command that fails alone (a key holding another
  type) gives its error reply in its place, as in a MULTI.
]]
local reads = {
  exists = true, get = true, pttl = true, ttl = true, type = true,
  hget = true, hmget = true, hgetall = true, hexists = true, hlen = true, hscan = true,
  llen = true, lrange = true, lindex = true, lpos = true,
  scard = true, smembers = true, sismember = true, sscan = true,
  zcard = true, zcount = true, zrange = true, zrevrange = true, zscore = true,
}

local commands = {}
local i = 1
while i <= #ARGV do
  local count = tonumber(ARGV[i])
  local name = string.lower(ARGV[i + 1] or "")
  if count == nil or not reads[name] then
    return redis.error_reply("ERR readTogether: not a read command: " .. tostring(ARGV[i + 1]))
  end
  commands[#commands + 1] = {name, i + 2, i + 1 + count}
  i = i + 2 + count
end

local replies = {}
for c = 1, #commands do
  local command = commands[c]
  replies[c] = redis.pcall(command[1], unpack(ARGV, command[2], command[3]))
end
return replies
`,
      INCLUDES,
    ),
  },
  recordCancelOutcome: {
    name: 'recordCancelOutcome',
    numberOfKeys: 2,
    keys: ['events', 'meta'],
    lua: inlineIncludes(
      `--[[
  Notes in the events stream how a cancel request ended, for the job's timeline: \`cancelled\`
  when the attempt ended as cancelled (ARGV[3] \`stopped\`: the processor gave up on its signal;
  \`force-stopped\`: the worker killed its sandbox child), \`cancel-ignored\` when the processor
  returned a result anyway and the job completed.

  KEYS[1] Q events  KEYS[2] Q meta
  ARGV[1] jobId  ARGV[2] event (\`cancelled\` or \`cancel-ignored\`)  ARGV[3] outcome

  Returns 1.
]]
--- @include "getMaxEvents"

local maxEvents = getMaxEvents(KEYS[2])
redis.call("XADD", KEYS[1], "MAXLEN", "~", maxEvents, "*", "event", ARGV[2], "jobId", ARGV[1],
  "outcome", ARGV[3])
return 1
`,
      INCLUDES,
    ),
  },
  recordHistory: {
    name: 'recordHistory',
    numberOfKeys: 3,
    keys: ['minuteHash', 'hourHash', 'index'],
    lua: inlineIncludes(
      `--[[
  Adds to a queue's history (docs/redis-keys.md, "History"): counts the workers gathered since
  their last flush, or a backlog sample, into the minute hash and the hour hash that hold them,
  and sets when each hash expires.

  KEYS[1] minute hash (Q oxmq:history:m:<hour start>)
  KEYS[2] hour hash (Q oxmq:history:h:<day start>)
  KEYS[3] index (Q oxmq:history: zset of the history hashes, scored by when each expires; read
          by obliterate, which deletes them with the queue)
  ARGV[1] when the minute hash expires (ms epoch)   ARGV[2] when the hour hash expires
  ARGV[3] JSON [field, increment, ...] for the minute hash
  ARGV[4] JSON [field, increment, ...] for the hour hash
  ARGV[5] JSON [field, value, ...] set in the minute hash (backlog samples)
  ARGV[6] JSON [field, value, ...] set in the hour hash

  Returns the number of fields written.
]]
local written = 0
local function increments(key, json)
  local pairs = cjson.decode(json)
  for i = 1, #pairs, 2 do
    redis.call("HINCRBY", key, pairs[i], pairs[i + 1])
    written = written + 1
  end
end
local function sets(key, json)
  local pairs = cjson.decode(json)
  for i = 1, #pairs, 2 do
    redis.call("HSET", key, pairs[i], pairs[i + 1])
    written = written + 1
  end
end
increments(KEYS[1], ARGV[3])
increments(KEYS[2], ARGV[4])
sets(KEYS[1], ARGV[5])
sets(KEYS[2], ARGV[6])
if written > 0 then
  redis.call("PEXPIREAT", KEYS[1], ARGV[1])
  redis.call("PEXPIREAT", KEYS[2], ARGV[2])
  -- Hashes that expired leave the index, which lives as long as its longest-lived hash.
  local now = redis.call("TIME")
  redis.call("ZREMRANGEBYSCORE", KEYS[3], "-inf", "(" .. (now[1] * 1000))
  redis.call("ZADD", KEYS[3], ARGV[1], KEYS[1], ARGV[2], KEYS[2])
  local last = redis.call("ZRANGE", KEYS[3], -1, -1, "WITHSCORES")
  redis.call("PEXPIREAT", KEYS[3], last[2])
end
return written
`,
      INCLUDES,
    ),
  },
  removeChildDependency: {
    name: 'removeChildDependency',
    numberOfKeys: 1,
    keys: ['childJobHash'],
    lua: inlineIncludes(
      `--[[
  job.removeChildDependency: the child stops being one of its parent's pending dependencies and
  forgets its parent (docs/redis-keys.md). A parent left with no pending child while it waits for them
  is released to the front of its wait list, as removing the child would (removeJobDetached).
  The parent comes from ARGV[2] or, when that is "", from the child's own \`parentKey\` field; its
  queue from the child's \`parent\` link when that names the same parent, else from the key.

  KEYS[1] child job hash

  ARGV[1] full key of the parent, or ""

  Returns 0 removed, 1 not a pending dependency of that parent (or no parent at all),
  -1 child missing, -5 parent missing.
]]
--- @include "removeJobDetached"
--- @include "splitJobKey"

local childKey = KEYS[1]
if redis.call("EXISTS", childKey) == 0 then
  return -1
end
local fields = redis.call("HMGET", childKey, "parentKey", "parent")
local parentKey = ARGV[1]
if parentKey == "" then
  parentKey = fields[1]
  if not parentKey then
    return 1
  end
end
if redis.call("EXISTS", parentKey) == 0 then
  return -5
end

local dependenciesKey = parentKey .. ":dependencies"
if redis.call("SREM", dependenciesKey, childKey) == 0 then
  return 1
end
redis.call("HDEL", childKey, "parentKey", "parent")

if redis.call("SCARD", dependenciesKey) == 0 then
  local parentBase, parentId
  if fields[1] == parentKey then
    parentBase, parentId = parentOfJob(parentKey, fields[2])
  else
    parentBase, parentId = splitJobKey(parentKey)
  end
  if parentBase and redis.call("ZREM", parentBase .. "waiting-children", parentId) == 1 then
    releaseParentToWait(parentBase, parentId)
  end
end
return 0
`,
      INCLUDES,
    ),
  },
  removeDeduplicationKey: {
    name: 'removeDeduplicationKey',
    numberOfKeys: 1,
    keys: ['deduplication'],
    lua: inlineIncludes(
      `--[[
  Ends a deduplication window, but only if the given job still owns it.
  KEYS[1] deduplication (Q de:<deduplicationId>)
  ARGV[1] jobId
  Returns 1 when the key was deleted, 0 when it named another job or did not exist.
]]
if redis.call("GET", KEYS[1]) == ARGV[1] then
  redis.call("DEL", KEYS[1])
  return 1
end
return 0
`,
      INCLUDES,
    ),
  },
  removeJob: {
    name: 'removeJob',
    numberOfKeys: 2,
    keys: ['jobHash', 'repeat'],
    lua: inlineIncludes(
      `--[[
  Removes one job (Queue.remove / job.remove), optionally with all its descendants.
  Descendants are the children recorded on a job: pending (\`:dependencies\`), completed
  (\`:processed\`), failed and ignored (\`:failed\`) and failed-parent (\`:unsuccessful\`), all as full
  keys "<prefix>:<queue>:<jobId>", possibly in other queues. The walk is depth first and
  collects at most ARGV[4] descendants; deeper or later ones are left where they are.
  Nothing is removed when the job or any collected descendant is locked by a worker.
  If the job is a pending child, it is detached from its parent, and a parent left without
  pending children is released to the front of its wait list.

  KEYS[1] job hash  KEYS[2] repeat

  ARGV[1] jobId  ARGV[2] "1" to remove descendants  ARGV[3] Q  ARGV[4] max descendants

  Returns 1 removed (also when the job did not exist; a dangling id is then just dropped from its
  state, without an event), 0 locked,
  -8 the job is the pending iteration of a job scheduler.
]]
--- @include "removeJobDetached"
--- @include "schedulerIteration"
--- @include "splitJobKey"
--- @include "getMaxEvents"
--- @include "groups"
--- @include "listSearch"

local jobId = ARGV[1]
local Q = ARGV[3]
local maxDescendants = tonumber(ARGV[4])
local rootKey = KEYS[1]

if isCurrentSchedulerIteration(KEYS[2], jobId) then
  return -8
end

-- Preorder walk; removing in reverse preorder deletes every child before its parent.
local nodes = {{Q, jobId}}
if ARGV[2] == "1" then
  local visited = {[rootKey] = true}
  local i = 1
  while i <= #nodes and #nodes <= maxDescendants do
    local nodeKey = nodes[i][1] .. nodes[i][2]
    local children = redis.call("SMEMBERS", nodeKey .. ":dependencies")
    for _, childKey in ipairs(redis.call("HKEYS", nodeKey .. ":processed")) do
      children[#children + 1] = childKey
    end
    for _, childKey in ipairs(redis.call("HKEYS", nodeKey .. ":failed")) do
      children[#children + 1] = childKey
    end
    for _, childKey in ipairs(redis.call("ZRANGE", nodeKey .. ":unsuccessful", 0, -1)) do
      children[#children + 1] = childKey
    end
    for _, childKey in ipairs(children) do
      local childBase, childId = splitJobKey(childKey)
      if childBase and not visited[childKey] and #nodes <= maxDescendants then
        visited[childKey] = true
        if redis.call("EXISTS", childKey) == 1 then
          nodes[#nodes + 1] = {childBase, childId}
        end
      end
    end
    i = i + 1
  end
end

for _, node in ipairs(nodes) do
  if redis.call("EXISTS", node[1] .. node[2] .. ":lock") == 1 then
    return 0
  end
end

-- The state structure holding the job, by the names the \`removed\` event uses. A grouped job's
-- "delayed" is Q group-delayed and its "wait" its group's line (its group's active set is left
-- by removeJobWithDedup).
local function takeOutOfState(base, id)
  local gid = redis.call("HGET", base .. id, "gid")
  if gid then
    if redis.call("ZREM", base .. "group-delayed", id) == 1 then
      return "delayed"
    end
    if removeFromGroupLine(base, gid, id) then
      return "wait"
    end
  end
  for _, state in ipairs({"completed", "failed", "delayed", "prioritized"}) do
    if redis.call("ZREM", base .. state, id) == 1 then
      return state
    end
  end
  if removeIdFromList(base .. "wait", id) then
    return "wait"
  end
  if removeIdFromList(base .. "paused", id) then
    return "paused"
  end
  if redis.call("LREM", base .. "active", -1, id) > 0 then
    return "active"
  end
  if redis.call("ZREM", base .. "waiting-children", id) == 1 then
    return "waiting-children"
  end
  return "unknown"
end

-- Detach the root from a parent still waiting for it, releasing that parent when the root was
-- its last pending child (the descendants' parents are removed too, so only the root needs it).
detachFromParent(Q, jobId, false)

-- Children before parents. The \`removed\` event reports the state each job was in before this
-- call (bullmq's own walk releases a parent to wait as its last child goes, so it reports
-- \`prev=wait\` for parents and emits \`waiting\` events for them first; the end state is the same).
for n = #nodes, 1, -1 do
  local base, id = nodes[n][1], nodes[n][2]
  if redis.call("EXISTS", base .. id) == 1 then
    local state = takeOutOfState(base, id)
    removeJobWithDedup(base, id)
    redis.call("XADD", base .. "events", "MAXLEN", "~", getMaxEvents(base .. "meta"), "*",
      "event", "removed", "jobId", id, "prev", state)
  elseif n == 1 then
    -- A dangling id without a hash: dropped silently, as bullmq does.
    takeOutOfState(base, id)
  end
end
return 1
`,
      INCLUDES,
    ),
  },
  removeJobScheduler: {
    name: 'removeJobScheduler',
    numberOfKeys: 6,
    keys: ['repeat', 'delayed', 'prioritized', 'wait', 'events', 'meta'],
    lua: inlineIncludes(
      `--[[
  Removes a job scheduler (Queue.removeJobScheduler): its entry in \`Q repeat\`, its hash, and its
  pending iteration if that has not started yet (delayed, prioritized or waiting), announced
  with a \`removed\` event. An iteration already running finishes normally and, finding no
  scheduler, creates no successor.

  KEYS[1] repeat  KEYS[2] delayed  KEYS[3] prioritized  KEYS[4] wait  KEYS[5] events
  KEYS[6] meta

  ARGV[1] scheduler id  ARGV[2] Q (with trailing colon)

  Returns 1 when the scheduler existed, 0 otherwise.
]]
--- @include "schedulerJobs"
--- @include "getMaxEvents"

local repeatKey = KEYS[1]
local schedulerId = ARGV[1]
local k = {base = ARGV[2], delayed = KEYS[2], prioritized = KEYS[3], wait = KEYS[4]}

local millis = tonumber(redis.call("ZSCORE", repeatKey, schedulerId))
if millis then
  local jobId = schedulerIterationId(schedulerId, millis)
  local state = pendingIterationState(k, jobId)
  if state then
    removePendingIteration(k, jobId, state)
    redis.call("XADD", KEYS[5], "MAXLEN", "~", getMaxEvents(KEYS[6]), "*", "event",
      "removed", "jobId", jobId, "prev", state)
  end
end
redis.call("DEL", repeatKey .. ":" .. schedulerId)
return redis.call("ZREM", repeatKey, schedulerId)
`,
      INCLUDES,
    ),
  },
  removeOrphanedJobs: {
    name: 'removeOrphanedJobs',
    numberOfKeys: 1,
    keys: ['base'],
    lua: inlineIncludes(
      `--[[
  Removes, among the given job ids, those whose keys exist but that no state structure holds:
  not in completed, failed, delayed, prioritized, waiting-children or group-delayed, not in wait,
  active or the legacy paused list, and (for a grouped job) not in its group's line or active set.
  Such keys are left over by a crash of an old bullmq version; nothing reaches them any more.
  A candidate whose key exists but is not a job hash is never touched.
  The check and the deletion run in one script, so a job moving meanwhile is never mistaken.

  KEYS[1] base (Q, the queue key prefix with trailing colon; every key is built from it)

  ARGV[1] most jobs to remove in this call (0: no limit)
  ARGV[2..] candidate job ids (one scan batch of the caller)

  Returns the number of jobs removed (their hash and sub-keys deleted).
]]
--- @include "deleteJobKeys"

local Q = KEYS[1]
local limit = tonumber(ARGV[1])
local zsets = {"completed", "failed", "delayed", "prioritized", "waiting-children", "group-delayed"}

-- First the cheap checks (sorted sets, group active sets); what is left needs the lists.
local unresolved = {}
local order = {}
local lists = {Q .. "wait", Q .. "active", Q .. "paused"}
local groupLines = {}
local count = 0
for i = 2, #ARGV do
  local jobId = ARGV[i]
  -- Only a job hash (bullmq and OxMQ always write \`timestamp\`), or no hash at all (sub-keys
  -- left behind), is a job: a key of some other queue under a longer prefix never qualifies.
  local keyType = redis.call("TYPE", Q .. jobId)["ok"]
  local isJob = keyType == "none" or (keyType == "hash" and redis.call("HEXISTS", Q .. jobId, "timestamp") == 1)
  if unresolved[jobId] == nil and not isJob then
    unresolved[jobId] = false
  end
  if unresolved[jobId] == nil then
    local held = false
    for _, state in ipairs(zsets) do
      if redis.call("ZSCORE", Q .. state, jobId) then
        held = true
        break
      end
    end
    local gid = redis.call("HGET", Q .. jobId, "gid")
    if not held and gid then
      held = redis.call("SISMEMBER", Q .. "group:" .. gid .. ":active", jobId) == 1
      if not held and not groupLines[gid] then
        groupLines[gid] = true
        lists[#lists + 1] = Q .. "group:" .. gid .. ":wait"
      end
    end
    if held then
      unresolved[jobId] = false
    else
      unresolved[jobId] = true
      order[#order + 1] = jobId
      count = count + 1
    end
  end
end

-- One pass over each list, in pages, until every remaining candidate is found or the lists end.
local PAGE = 1000
for _, list in ipairs(lists) do
  if count == 0 then
    break
  end
  local length = redis.call("LLEN", list)
  local from = 0
  while from < length and count > 0 do
    for _, jobId in ipairs(redis.call("LRANGE", list, from, from + PAGE - 1)) do
      if unresolved[jobId] then
        unresolved[jobId] = false
        count = count - 1
      end
    end
    from = from + PAGE
  end
end

local removed = 0
for _, jobId in ipairs(order) do
  if limit > 0 and removed >= limit then
    break
  end
  if unresolved[jobId] then
    deleteJobKeys(Q .. jobId)
    removed = removed + 1
  end
end
return removed
`,
      INCLUDES,
    ),
  },
  repairDanglingId: {
    name: 'repairDanglingId',
    numberOfKeys: 1,
    keys: ['base'],
    lua: inlineIncludes(
      `--[[
  Integrity repair of member-without-hash (docs/integrity.md, "Repairs"): removes a job id whose
  hash is gone from the state structures. A grouped id sits in its group's line only, and its
  group is unknown once the hash is gone: the caller names the groups whose line may hold it. A
  group whose line this empties leaves the Q groups ring, as every writer of a line does.
  Nothing is written while the hash exists.

  Lists are searched and trimmed only within LIST_END_WINDOW entries of each end
  (includes/listSearch.lua): an id deep inside a longer list is left there, since taking it out
  would scan the list and hold Redis (docs/reliability.md, "Large backlogs"). A key of another
  type than its structure's holds no id and is passed over. Every list is searched before the
  first write.

  KEYS[1] base (Q, the queue key prefix with trailing colon; every key is built from it)

  ARGV[1] job id  ARGV[2..] ids of the groups whose line may hold it

  Returns {1, the structures it was removed from, comma-separated} or {0, why nothing was written}:
  "the job hash exists", "deep:<lists>" (not near either end of those long lists, found nowhere
  else) or "the id is in no state structure any more".
]]
--- @include "listSearch"

-- Copies of one id taken out of one list in a call; a list holds an id at most a few times.
local MAX_COPIES = 100

local Q = KEYS[1]
local id = ARGV[1]
if redis.call("EXISTS", Q .. id) == 1 then
  return {0, "the job hash exists"}
end

local lists = {}
for _, state in ipairs({"wait", "paused", "active"}) do
  lists[#lists + 1] = {key = Q .. state, name = state}
end
for i = 2, #ARGV do
  local name = "group:" .. ARGV[i] .. ":wait"
  lists[#lists + 1] = {key = Q .. name, name = name, gid = ARGV[i]}
end

local removed = {}
local deep = {}
local holding = {}
for _, list in ipairs(lists) do
  if redis.call("TYPE", list.key)["ok"] == "list" then
    local where = findNearListEnds(list.key, id)
    if where == "head" or where == "tail" then
      holding[#holding + 1] = list
    elseif where == "middle" then
      deep[#deep + 1] = list.name
    end
  end
end

for _, list in ipairs(holding) do
  local where = findNearListEnds(list.key, id)
  local copies = 0
  while (where == "head" or where == "tail") and copies < MAX_COPIES do
    redis.call("LREM", list.key, where == "tail" and -1 or 1, id)
    copies = copies + 1
    where = findNearListEnds(list.key, id)
  end
  removed[#removed + 1] = list.name
  if list.gid and redis.call("LLEN", list.key) == 0 then
    redis.call("LREM", Q .. "groups", 0, list.gid)
  end
end
for _, state in ipairs({"prioritized", "delayed", "group-delayed", "waiting-children", "completed", "failed"}) do
  local reply = redis.pcall("ZREM", Q .. state, id)
  if type(reply) == "number" and reply > 0 then
    removed[#removed + 1] = state
  end
end
if #removed == 0 then
  if #deep > 0 then
    return {0, "deep:" .. table.concat(deep, ",")}
  end
  return {0, "the id is in no state structure any more"}
end
redis.pcall("SREM", Q .. "stalled", id)
return {1, table.concat(removed, ",")}
`,
      INCLUDES,
    ),
  },
  repairMarkStalled: {
    name: 'repairMarkStalled',
    numberOfKeys: 4,
    keys: ['jobHash', 'active', 'lock', 'stalled'],
    lua: inlineIncludes(
      `--[[
  Integrity repair of active-unlocked (docs/integrity.md, "Repairs"): marks an active job that
  holds no lock as stalled, so the next stalled check (lua/moveStalledJobsToWait-8.lua, phase 1)
  recovers it with its usual accounting. Nothing is written unless the job still exists, is
  still active, holds no lock and is not marked yet. Q active is searched within
  LIST_END_WINDOW entries of each end (includes/listSearch.lua): a job not found there in a
  longer list cannot be confirmed active without a scan that would hold Redis, and is left alone.

  KEYS[1] job hash  KEYS[2] active  KEYS[3] lock (the job's)  KEYS[4] stalled

  ARGV[1] job id

  Returns {1, "marked stalled"} or {0, why nothing was written}: "deep:active" when the job may
  be deep inside a long Q active.
]]
--- @include "listSearch"

local id = ARGV[1]
if redis.call("EXISTS", KEYS[1]) == 0 then
  return {0, "the job hash is gone"}
end
local where = findNearListEnds(KEYS[2], id)
if where == "absent" then
  return {0, "the job is no longer active"}
end
if where == "middle" then
  return {0, "deep:active"}
end
if redis.call("EXISTS", KEYS[3]) == 1 then
  return {0, "the job holds a lock"}
end
if redis.call("SISMEMBER", KEYS[4], id) == 1 then
  return {0, "the job is already marked stalled"}
end
redis.call("SADD", KEYS[4], id)
return {1, "marked stalled"}
`,
      INCLUDES,
    ),
  },
  repairPlaceFinished: {
    name: 'repairPlaceFinished',
    numberOfKeys: 1,
    keys: ['base'],
    lua: inlineIncludes(
      `--[[
  Integrity repair of hash-without-state (docs/integrity.md, "Repairs"): puts a finished job that
  no state structure holds back into Q completed (it has a returnvalue) or Q failed (a
  failedReason), scored by finishedOn as moveToFinished scores it. Nothing is written while the
  job is in a state (its group's line or active set included) or holds a lock; an unfinished job
  is left alone, since placing it would decide when it runs. Lists are searched within
  LIST_END_WINDOW entries of each end (includes/listSearch.lua): when a longer list might hold the
  job deeper inside, nothing is written, since ruling that out would scan the list and hold Redis.

  KEYS[1] base (Q, the queue key prefix with trailing colon; every key is built from it)

  ARGV[1] job id

  Returns {1, "completed" or "failed"} or {0, why nothing was written}: "deep:<lists>" when the
  job may be deep inside those long lists.
]]
--- @include "listSearch"

local Q = KEYS[1]
local id = ARGV[1]
local fields = redis.call("HMGET", Q .. id, "timestamp", "finishedOn", "returnvalue", "failedReason", "gid")
if not fields[1] then
  return {0, "the job hash is gone"}
end
local deep = {}
-- True when the job is within the window of an end of the list; a longer list that may hold it
-- deeper inside is noted in \`deep\`.
local function inList(key, name)
  local where = findNearListEnds(key, id)
  if where == "middle" then
    deep[#deep + 1] = name
    return false
  end
  return where ~= "absent"
end
for _, state in ipairs({"wait", "paused", "active"}) do
  if inList(Q .. state, state) then
    return {0, "the job is in a state again"}
  end
end
for _, state in ipairs({"prioritized", "delayed", "group-delayed", "waiting-children", "completed", "failed"}) do
  if redis.call("ZSCORE", Q .. state, id) then
    return {0, "the job is in a state again"}
  end
end
local gid = fields[5]
if gid then
  local group = Q .. "group:" .. gid .. ":"
  if inList(group .. "wait", "group:" .. gid .. ":wait") or redis.call("SISMEMBER", group .. "active", id) == 1 then
    return {0, "the job is in a state again"}
  end
end
if #deep > 0 then
  return {0, "deep:" .. table.concat(deep, ",")}
end
if redis.call("EXISTS", Q .. id .. ":lock") == 1 then
  return {0, "the job holds a lock"}
end
local finishedOn = tonumber(fields[2] or "")
if not finishedOn then
  return {0, "report-only: an unfinished job; placing it would run it (operator decision)"}
end
if fields[3] then
  redis.call("ZADD", Q .. "completed", finishedOn, id)
  return {1, "completed"}
end
if fields[4] then
  redis.call("ZADD", Q .. "failed", finishedOn, id)
  return {1, "failed"}
end
return {0, "report-only: finished with neither returnvalue nor failedReason"}
`,
      INCLUDES,
    ),
  },
  repairPriorityCounter: {
    name: 'repairPriorityCounter',
    numberOfKeys: 2,
    keys: ['prioritized', 'pc'],
    lua: inlineIncludes(
      `--[[
  Integrity repair of priority-counter (docs/integrity.md, "Repairs"): raises Q pc to a
  prioritized job's counter (its score mod 2^32, docs/redis-keys.md), so later jobs of the same
  priority queue behind it. No job is touched.

  KEYS[1] prioritized  KEYS[2] pc

  ARGV[1] job id

  Returns {1, "pc <old> -> <new>"} or {0, why nothing was written}.
]]
local score = redis.call("ZSCORE", KEYS[1], ARGV[1])
if not score then
  return {0, "the job is no longer prioritized"}
end
local counter = math.fmod(tonumber(score), 4294967296)
local pc = tonumber(redis.call("GET", KEYS[2]) or "0") or 0
if counter <= pc then
  return {0, "pc already covers the job"}
end
redis.call("SET", KEYS[2], string.format("%d", counter))
return {1, "pc " .. string.format("%d", pc) .. " -> " .. string.format("%d", counter)}
`,
      INCLUDES,
    ),
  },
  repairTrimEvents: {
    name: 'repairTrimEvents',
    numberOfKeys: 2,
    keys: ['meta', 'events'],
    lua: inlineIncludes(
      `--[[
  Integrity repair of events-over-cap (docs/integrity.md, "Repairs"): trims the events stream to
  the queue's cap (opts.maxLenEvents of Q meta), with MAXLEN ~ first and exactly when trimming
  whole stream nodes left it over the tolerance (engine/admin/redis/integrity/events-cap.ts).

  KEYS[1] meta  KEYS[2] events

  ARGV[1] the cap when meta has none  ARGV[2] least tolerance  ARGV[3] tolerance ratio of the cap

  Returns {1, "<before> -> <after> entries (cap <cap>)"} or {0, why nothing was written}.
]]
local cap = tonumber(redis.call("HGET", KEYS[1], "opts.maxLenEvents") or "") or tonumber(ARGV[1])
local slack = math.max(tonumber(ARGV[2]), math.ceil(cap * tonumber(ARGV[3])))
local before = redis.call("XLEN", KEYS[2])
if before <= cap + slack then
  return {0, "the stream is within its cap"}
end
redis.call("XTRIM", KEYS[2], "MAXLEN", "~", cap)
if redis.call("XLEN", KEYS[2]) > cap + slack then
  redis.call("XTRIM", KEYS[2], "MAXLEN", cap)
end
return {1, before .. " -> " .. redis.call("XLEN", KEYS[2]) .. " entries (cap " .. cap .. ")"}
`,
      INCLUDES,
    ),
  },
  reprocessJob: {
    name: 'reprocessJob',
    numberOfKeys: 9,
    keys: ['jobHash', 'events', 'state', 'wait', 'meta', 'active', 'marker', 'prioritized', 'pc'],
    lua: inlineIncludes(
      `--[[
  Job.retry for a completed or failed job: back to wait (or prioritized; a grouped job to its
  group's line), with its result and finish time cleared. A child of a live parent becomes one of its pending dependencies again
  (includes/returnChildToParent.lua); a parent that was already released is not moved back.

  KEYS[1] job hash  KEYS[2] events  KEYS[3] state (completed | failed)  KEYS[4] wait
  KEYS[5] meta  KEYS[6] active  KEYS[7] marker  KEYS[8] prioritized  KEYS[9] pc

  ARGV[1] jobId  ARGV[2] "LPUSH" (back of the line) | "RPUSH" (front, lifo)
  ARGV[3] "returnvalue" | "failedReason" (the result field to clear)  ARGV[4] state
  ARGV[5] "1" to reset attemptsMade  ARGV[6] "1" to reset attemptsStarted

  Returns 1, -1 job missing, -3 job not in that state.
]]
--- @include "getMaxEvents"
--- @include "isPausedOrMaxed"
--- @include "enqueueReadyJob"
--- @include "returnChildToParent"

local jobKey = KEYS[1]
local jobId = ARGV[1]
if redis.call("EXISTS", jobKey) == 0 then
  return -1
end
if redis.call("ZREM", KEYS[3], jobId) == 0 then
  return -3
end

redis.call("HDEL", jobKey, "finishedOn", "processedOn", ARGV[3])
if ARGV[5] == "1" then
  redis.call("HDEL", jobKey, "atm", "attemptsMade")
end
if ARGV[6] == "1" then
  redis.call("HDEL", jobKey, "ats")
end

local priority = tonumber(redis.call("HGET", jobKey, "priority")) or 0
enqueueReadyJob(KEYS[4], KEYS[8], KEYS[9], KEYS[7], jobId, priority, ARGV[2], isPausedOrMaxed(KEYS[5], KEYS[6]))
returnChildToParent(jobKey, ARGV[4])
redis.call("XADD", KEYS[2], "MAXLEN", "~", getMaxEvents(KEYS[5]), "*", "event", "waiting", "jobId", jobId,
  "prev", ARGV[4])
return 1
`,
      INCLUDES,
    ),
  },
  requestJobCancel: {
    name: 'requestJobCancel',
    numberOfKeys: 8,
    keys: ['active', 'lock', 'worker', 'workerCancel', 'workerWake', 'jobHash', 'events', 'meta'],
    lua: inlineIncludes(
      `--[[
  Asks the OxMQ worker holding an active job to cancel it, and wakes that worker: a member in
  its wake key ends its blocking wait at once (it blocks on the queue's marker and this key
  together, or on this key alone while its slots are full), so the request does not wait for
  the next heartbeat. The request is recorded on the job (\`oxmq.cancel\`, what the console's job
  page reads) and in the events stream (\`cancel-requested\`, the job's timeline).

  KEYS[1] Q active  KEYS[2] lock (Q<jobId>:lock)
  KEYS[3] worker (Q oxmq:worker:<workerId> of the lock token)
  KEYS[4] worker cancel (Q oxmq:worker:<workerId>:cancel)
  KEYS[5] worker wake (Q oxmq:worker:<workerId>:wake, a zset)
  KEYS[6] job hash (Q<jobId>)  KEYS[7] Q events  KEYS[8] Q meta
  ARGV[1] jobId  ARGV[2] the lock token the caller read ("" when none)  ARGV[3] reason
  ARGV[4] "1" for a force stop (the worker kills the sandbox child running the job), else ""
  ARGV[5] now (ms)

  Returns 0 when the job is not active, 1 when the request was left for a live OxMQ worker,
  2 when the job is active but no live OxMQ worker holds it, 3 when the lock changed since the
  caller read it (the caller reads it again).
]]
--- @include "getMaxEvents"

if not redis.call("LPOS", KEYS[1], ARGV[1]) then return 0 end
local lock = redis.call("GET", KEYS[2]) or ""
if lock ~= ARGV[2] then return 3 end
if lock == "" or redis.call("EXISTS", KEYS[3]) == 0 then return 2 end

local force = ARGV[4] == "1"
local ttl = redis.call("PTTL", KEYS[3])
redis.call("HSET", KEYS[4], ARGV[1], cjson.encode({ reason = ARGV[3], force = force }))
redis.call("ZADD", KEYS[5], 0, "cancel")
if ttl > 0 then
  redis.call("PEXPIRE", KEYS[4], ttl)
  redis.call("PEXPIRE", KEYS[5], ttl)
end

-- The job's record of the request, for the attempt now running: a second request (a force stop
-- after a cancel) keeps the time of the first, so the page counts its grace period from there.
local attempt = tonumber(redis.call("HGET", KEYS[6], "ats") or "0") or 0
local now = tonumber(ARGV[5])
local record = { at = now, reason = ARGV[3], attempt = attempt }
local previous = redis.call("HGET", KEYS[6], "oxmq.cancel")
if previous then
  local ok, decoded = pcall(cjson.decode, previous)
  if ok and type(decoded) == "table" and decoded.attempt == attempt and decoded.at then
    record.at = decoded.at
    record.reason = decoded.reason
    record.forceAt = decoded.forceAt
  end
end
if force then record.forceAt = now end
redis.call("HSET", KEYS[6], "oxmq.cancel", cjson.encode(record))

local maxEvents = getMaxEvents(KEYS[8])
redis.call("XADD", KEYS[7], "MAXLEN", "~", maxEvents, "*", "event", "cancel-requested",
  "jobId", ARGV[1], "reason", ARGV[3], "force", force and "1" or "0")
return 1
`,
      INCLUDES,
    ),
  },
  retryJob: {
    name: 'retryJob',
    numberOfKeys: 10,
    keys: [
      'active',
      'wait',
      'jobHash',
      'meta',
      'events',
      'delayed',
      'prioritized',
      'pc',
      'marker',
      'stalled',
    ],
    lua: inlineIncludes(
      `--[[
  Sends a failed attempt straight back to be run again (retry without backoff delay). A grouped
  job goes back to its group's line (back, or front for lifo) and frees its group slot.

  KEYS[1] active  KEYS[2] wait  KEYS[3] job hash  KEYS[4] meta  KEYS[5] events
  KEYS[6] delayed KEYS[7] prioritized KEYS[8] pc  KEYS[9] marker KEYS[10] stalled

  ARGV[1] Q  ARGV[2] now  ARGV[3] "LPUSH" | "RPUSH" (lifo)  ARGV[4] jobId  ARGV[5] token
  ARGV[6] JSON array of fields to write [k1, v1, ...]

  Returns 0, or -1 job missing, -2 lock missing, -3 not active, -6 lock owned by another token.
]]
--- @include "getMaxEvents"
--- @include "isPausedOrMaxed"
--- @include "leaveActive"
--- @include "promoteDueDelayedJobs"
--- @include "groups"

local jobKey = KEYS[3]
local jobId = ARGV[4]
local Q = ARGV[1]

promoteDueDelayedJobs(KEYS[6], KEYS[2], KEYS[7], KEYS[8], KEYS[5], KEYS[9], Q, tonumber(ARGV[2]),
  isPausedOrMaxed(KEYS[4], KEYS[1]))

local left = leaveActive(jobKey, KEYS[1], KEYS[10], jobId, ARGV[5], ARGV[6])
if left < 0 then
  return left
end
leaveGroupActiveOf(Q, jobId)

local priority = tonumber(redis.call("HGET", jobKey, "priority")) or 0
enqueueReadyJob(KEYS[2], KEYS[7], KEYS[8], KEYS[9], jobId, priority, ARGV[3], isPausedOrMaxed(KEYS[4], KEYS[1]))
redis.call("HINCRBY", jobKey, "atm", 1)
redis.call("XADD", KEYS[5], "MAXLEN", "~", getMaxEvents(KEYS[4]), "*", "event", "waiting", "jobId", jobId, "prev", "active")
return 0
`,
      INCLUDES,
    ),
  },
  updateData: {
    name: 'updateData',
    numberOfKeys: 1,
    keys: ['jobHash'],
    lua: inlineIncludes(
      `--[[
  Replaces a job's data.
  KEYS[1] job hash   ARGV[1] data (JSON text)
  Returns 0, or -1 when the job is missing.
]]
if redis.call("EXISTS", KEYS[1]) == 0 then
  return -1
end
redis.call("HSET", KEYS[1], "data", ARGV[1])
return 0
`,
      INCLUDES,
    ),
  },
  updateGroup: {
    name: 'updateGroup',
    numberOfKeys: 3,
    keys: ['hash', 'meta', 'marker'],
    lua: inlineIncludes(
      `--[[
  Changes tenant group settings: one group's own (Q group:<gid>:meta: paused, concurrency, max,
  duration) or the queue-wide defaults (Q meta: group.concurrency, group.max, group.duration;
  a group's own value wins). A named group is registered in Q groups:known. Afterwards idle
  workers are woken when grouped jobs wait, since a resumed group, a higher concurrency or a
  lifted rate limit may let them run.

  KEYS[1] hash (the one to change: Q group:<gid>:meta, or Q meta for the defaults)
  KEYS[2] Q meta  KEYS[3] marker

  ARGV[1] Q  ARGV[2] group id, or "" for the defaults
  ARGV[3] JSON {set = [field1, value1, ...], del = [field, ...]}

  Returns 1.
]]
--- @include "groups"

local Q = ARGV[1]
local change = cjson.decode(ARGV[3])
if ARGV[2] ~= "" then
  registerGroup(Q, ARGV[2])
end
if type(change.del) == "table" and #change.del > 0 then
  redis.call("HDEL", KEYS[1], unpack(change.del))
end
if type(change.set) == "table" and #change.set > 0 then
  redis.call("HSET", KEYS[1], unpack(change.set))
end
if redis.call("LLEN", Q .. "groups") > 0 then
  signalJobsReady(KEYS[3], isPausedOrMaxed(KEYS[2], Q .. "active"))
end
return 1
`,
      INCLUDES,
    ),
  },
  updateJobScheduler: {
    name: 'updateJobScheduler',
    numberOfKeys: 12,
    keys: [
      'repeat',
      'wait',
      'meta',
      'id',
      'delayed',
      'prioritized',
      'pc',
      'marker',
      'events',
      'active',
      'waitingChildren',
      'completed',
    ],
    lua: inlineIncludes(
      `--[[
  Creates the next iteration of a job scheduler when a worker starts the current one. Only the
  current iteration may do so (its id equals "repeat:<id>:<score in Q repeat>"), so however many
  workers, processes or re-fetches of a stalled iteration call this, each iteration produces at
  most one successor. For every-schedules the next slot is computed here from the score; for
  cron the client computes it. The job takes name and data from the scheduler hash.

  KEYS[1] repeat   KEYS[4]  id         KEYS[7]  pc       KEYS[10] active
  KEYS[2] wait     KEYS[5]  delayed    KEYS[8]  marker   KEYS[11] waiting-children
  KEYS[3] meta     KEYS[6]  prioritized KEYS[9] events   KEYS[12] completed

  ARGV[1] JSON {base (Q), id (scheduler id), producerId (id of the iteration that was fetched),
          nextMillis (cron only), opts (the new iteration's opts table, short keys)}
  ARGV[2] now (ms)

  Returns the new iteration's id, or 0 when the scheduler is gone, 1 when producerId is not the
  current iteration (its successor exists already), 2 when the next id is already taken, 3 when
  the next run would fall after the scheduler's endDate, 4 when the scheduler is paused (OxMQ's
  \`oxmq.pausedAt\`, see pauseJobScheduler: resuming schedules the next run).
]]
--- @include "schedulerJobs"
--- @include "getMaxEvents"

local s = cjson.decode(ARGV[1])
local now = tonumber(ARGV[2])
local k = queueKeysFromKeys(s.base, 2)
local repeatKey = KEYS[1]
local schedulerId = s.id
local schedulerKey = repeatKey .. ":" .. schedulerId

local current = tonumber(redis.call("ZSCORE", repeatKey, schedulerId))
if not current then
  return 0
end
local stored = redis.call("HMGET", schedulerKey, "name", "data", "every", "offset", "endDate",
  "oxmq.pausedAt")
if not stored[1] then
  return 0
end
if stored[6] then
  return 4
end
if s.producerId ~= schedulerIterationId(schedulerId, current) then
  return 1
end

local repeatOpts = type(s.opts["repeat"]) == "table" and s.opts["repeat"] or {}
local every = tonumber(stored[3]) or tonumber(repeatOpts["every"])
local millis
if every then
  millis = nextEverySlot(current, every, now, tonumber(stored[4]) or tonumber(repeatOpts["offset"]))
else
  millis = tonumber(s.nextMillis)
  if not millis then
    return 0
  end
  millis = math.floor(millis)
end

local endDate = tonumber(stored[5])
if endDate and millis > endDate then
  return 3
end

local nextId = schedulerIterationId(schedulerId, millis)
if redis.call("EXISTS", k.base .. nextId) == 1 then
  redis.call("XADD", k.events, "MAXLEN", "~", getMaxEvents(k.meta), "*", "event", "duplicated",
    "jobId", nextId)
  return 2
end

redis.call("ZADD", repeatKey, millis, schedulerId)
redis.call("HINCRBY", schedulerKey, "ic", 1)
addSchedulerIteration(k, schedulerId, millis, stored[1], stored[2] or "{}", s.opts, now)
return nextId
`,
      INCLUDES,
    ),
  },
  updateProgress: {
    name: 'updateProgress',
    numberOfKeys: 3,
    keys: ['jobHash', 'events', 'meta'],
    lua: inlineIncludes(
      `--[[
  Stores a job's progress and announces it.
  KEYS[1] job hash  KEYS[2] events  KEYS[3] meta
  ARGV[1] jobId  ARGV[2] progress (JSON text)
  Returns 0, or -1 when the job is missing.
]]
--- @include "getMaxEvents"
if redis.call("EXISTS", KEYS[1]) == 0 then
  return -1
end
redis.call("HSET", KEYS[1], "progress", ARGV[2])
redis.call("XADD", KEYS[2], "MAXLEN", "~", getMaxEvents(KEYS[3]), "*", "event", "progress", "jobId", ARGV[1], "data", ARGV[2])
return 0
`,
      INCLUDES,
    ),
  },
  workerHeartbeat: {
    name: 'workerHeartbeat',
    numberOfKeys: 3,
    keys: ['worker', 'workers', 'workerCancel'],
    lua: inlineIncludes(
      `--[[
  One beat of an OxMQ worker's heartbeat: refreshes its record, indexes it, prunes index members
  whose record expired, and hands the worker what was asked of it since the last beat.

  KEYS[1] worker (Q oxmq:worker:<workerId>, a hash)  KEYS[2] workers (Q oxmq:workers, a zset)
  KEYS[3] worker cancel (Q oxmq:worker:<workerId>:cancel, a hash jobId -> reason)
  ARGV[1] workerId  ARGV[2] now (ms)  ARGV[3] ttl (ms)  ARGV[4] JSON object of the record's fields
  ARGV[5] Q (the queue's base key)  ARGV[6] how long (ms) the entry of a worker that stopped
  beating stays in the index after its last beat, so a console can tell it went missing

  Returns { command or false, { jobId, reason, ... } }: the pending command (\`quiet\` / \`resume\`)
  and the cancel requests, which are deleted as they are handed over.
]]
local fields = cjson.decode(ARGV[4])
local flat = {}
for field, value in pairs(fields) do
  table.insert(flat, field)
  table.insert(flat, tostring(value))
end
redis.call("HSET", KEYS[1], unpack(flat))
redis.call("PEXPIRE", KEYS[1], ARGV[3])
redis.call("ZADD", KEYS[2], ARGV[2], ARGV[1])

-- Each worker's record has its own TTL, so the index is pruned by record, oldest first, bounded;
-- only entries whose last beat is older than ARGV[6]: until then a dead worker's entry is how
-- the console knows it went missing (engine/admin/redis/problem-signals.ts).
local oldest = redis.call("ZRANGEBYSCORE", KEYS[2], "-inf", tonumber(ARGV[2]) - tonumber(ARGV[6]),
  "LIMIT", 0, 20)
for _, id in ipairs(oldest) do
  if redis.call("EXISTS", ARGV[5] .. "oxmq:worker:" .. id) == 0 then
    redis.call("ZREM", KEYS[2], id)
  end
end

local command = redis.call("HGET", KEYS[1], "command")
local cancels = redis.call("HGETALL", KEYS[3])
if #cancels > 0 then redis.call("DEL", KEYS[3]) end
return { command, cancels }
`,
      INCLUDES,
    ),
  },
};
