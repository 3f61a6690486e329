--[[
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
