--[[
  Adds one job: stores its hash and enqueues it as delayed, prioritized, waiting, or (a parent
  given children elsewhere) waiting-children. A job with a parent joins its dependencies. A
  grouped job (`groupId`) waits in its group's line or in Q group-delayed instead.

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
