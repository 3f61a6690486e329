--[[
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

  A grouped job (hash field `gid`) also leaves its group's active set.

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
