--[[
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
  - otherwise: ARGV[1] JSON array of job tables (see includes/insertJob.lua), each with `base`
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
