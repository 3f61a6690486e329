--[[
  Gives the calling BatchWorker up to ARGV[4] jobs at once, all locked with its token, stopping
  before the sum of their data sizes passes ARGV[5] bytes (see includes/fetchJobBatch.lua).

  KEYS[1] wait  KEYS[2] active  KEYS[3] prioritized  KEYS[4] events  KEYS[5] limiter
  KEYS[6] delayed  KEYS[7] meta  KEYS[8] pc  KEYS[9] marker

  ARGV[1] Q   ARGV[2] now (ms)
  ARGV[3] JSON worker table {token, lockDuration, limitMax?, limitDuration?, name?}
  ARGV[4] batch size (1 or more)   ARGV[5] byte budget for the batch's data (0: none)

  Returns {{jobHashFlat...}, {jobId...}, 0, 0} or {0, 0, rateLimitTtl, nextWakeTs}.
]]
--- @include "fetchJobBatch"

local keys = {wait = KEYS[1], active = KEYS[2], prioritized = KEYS[3], events = KEYS[4],
  limiter = KEYS[5], delayed = KEYS[6], meta = KEYS[7], pc = KEYS[8], marker = KEYS[9]}
return fetchJobBatch(keys, ARGV[1], tonumber(ARGV[2]), cjson.decode(ARGV[3]),
  tonumber(ARGV[4]), tonumber(ARGV[5]))
