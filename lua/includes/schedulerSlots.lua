-- Timing of job schedulers (bullmq 6 semantics, our own arithmetic). Millis are whole ms.

-- The text form of a millis value in ids and keys: "repeat:<schedulerId>:<millis>".
local function millisText(ms)
  return string.format("%d", ms)
end

local function schedulerIterationId(schedulerId, millis)
  return "repeat:" .. schedulerId .. ":" .. millisText(millis)
end

-- The offset an every-schedule keeps: the given one, or where `millis` falls in its interval.
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

-- The run after the one at `prevMillis`. When that slot is already past (the schedule fell
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
