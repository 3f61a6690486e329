--[[
  Gives the calling worker its next job (locked with its token), promoting due delayed jobs first
  (grouped ones too). Ungrouped and tenant-grouped work take turns; see includes/fetchNextJob.lua
  and includes/groups.lua.

  KEYS[1] wait  KEYS[2] active  KEYS[3] prioritized  KEYS[4] events  KEYS[5] limiter
  KEYS[6] delayed  KEYS[7] meta  KEYS[8] pc  KEYS[9] marker

  ARGV[1] Q   ARGV[2] now (ms)
  ARGV[3] JSON worker table {token, lockDuration, limitMax?, limitDuration?, name?}

  Returns {jobHashFlat, jobId, 0, 0} or {0, 0, rateLimitTtl, nextWakeTs} (see fetchNextJob).
]]
--- @include "fetchNextJob"

local keys = {wait = KEYS[1], active = KEYS[2], prioritized = KEYS[3], events = KEYS[4],
  limiter = KEYS[5], delayed = KEYS[6], meta = KEYS[7], pc = KEYS[8], marker = KEYS[9]}
return fetchNextJob(keys, ARGV[1], tonumber(ARGV[2]), cjson.decode(ARGV[3]))
