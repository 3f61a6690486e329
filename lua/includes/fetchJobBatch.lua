--- @include "fetchNextJob"
--- @include "takeWaitingRun"
-- Hands a BatchWorker up to `batchSize` jobs, each taken exactly as fetchNextJob takes one (rate
-- limits count every job, global and group concurrency hold, each job is locked with the
-- batch's token and announced `active`). The batch stops before the job whose data would bring
-- the sum of the batch's data sizes past `maxBytes`; the first job always comes, however big,
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
