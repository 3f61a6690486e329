--- @include "batchedCall"
--- @include "promoteDueDelayedJobs"
--- @include "startJob"
-- The common case of a batch fetch, in a few commands instead of a few per job: no rate limit,
-- no pause or global concurrency, no tenant groups in the ring, no byte budget. The batch then
-- is the run of jobs at the tail of the wait list (the next ones in line), read with one LRANGE,
-- cut with one LTRIM and pushed onto `active` with one LPUSH, in the order one-by-one pops
-- would leave. Each job still gets its own hash read, lock, `active` event and start fields,
-- which bullmq workers, QueueEvents and Bull-Board read.
-- Appends the jobs taken to hashes/ids, which the caller passes empty, and returns how many
-- (0 when the case does not apply or wait is empty); the caller's per-job path takes the rest
-- (prioritized jobs, grouped work).
-- batch: fetchJobBatch's table; gets `meta` and, once delayed jobs were promoted here, `later`.

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
