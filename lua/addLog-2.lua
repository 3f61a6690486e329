--[[
  Appends a log line to a job, keeping only the newest keepLogs lines when asked.
  KEYS[1] job hash  KEYS[2] job logs
  ARGV[1] jobId  ARGV[2] line  ARGV[3] keepLogs, or ""
  Returns the number of lines kept, or -1 when the job is missing.
]]
if redis.call("EXISTS", KEYS[1]) == 0 then
  return -1
end
local count = redis.call("RPUSH", KEYS[2], ARGV[2])
local keep = tonumber(ARGV[3])
if keep then
  redis.call("LTRIM", KEYS[2], -keep, -1)
  return math.min(keep, count)
end
return count
