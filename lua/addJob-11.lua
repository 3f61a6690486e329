--[[
  Adds one job: stores its hash and enqueues it as delayed, prioritized, waiting, or (a parent
  given children elsewhere) waiting-children. A job with a parent joins its dependencies. A
  grouped job (`groupId`) waits in its group's line or in Q group-delayed instead.

  KEYS[1] wait      KEYS[5] prioritized  KEYS[9]  active
  KEYS[2] meta      KEYS[6] pc           KEYS[10] waiting-children
  KEYS[3] id        KEYS[7] marker       KEYS[11] completed
  KEYS[4] delayed   KEYS[8] events

  ARGV[1] JSON job table (see includes/insertJob.lua) plus `base` (Q, with trailing colon)
  ARGV[2] now (ms)

  Returns {jobId, 0} for a new job, {existingJobId, 1} when the custom id already exists,
  {ownerJobId, 2} when deduplication kept an existing job instead, or a negative error code:
  -5 parent missing, -7 the job already belongs to another parent.
]]
--- @include "insertJob"

local job = cjson.decode(ARGV[1])
local jobId, outcome = insertJob(queueKeysFromKeys(job.base, 1), job, tonumber(ARGV[2]))
if not jobId then
  return outcome
end
if outcome == "duplicate" then
  return {jobId, 1}
elseif outcome == "deduplicated" then
  return {jobId, 2}
end
return {jobId, 0}
