--- @include "isPausedOrMaxed"
-- After a completion call that handed out no next job: announce `drained` when nothing is
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
