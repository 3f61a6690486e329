-- The writes that hand a taken job (already in `active`) to a worker, shared by the one-job fetch
-- (fetchNextJob) and the run of a batch taken straight from wait (takeWaitingRun): the lock, the
-- `active` event and the start fields, with the reply's copy of the hash patched to match.

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
