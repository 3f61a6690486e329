--[[
  Runs a batch of read commands as one step, where a MULTI of the same reads would do: Redis at
  maxmemory (noeviction) refuses every command queued in a MULTI, reads included, but lets a
  script run until its first write, and this one never writes. So an operator can still list and
  count jobs, and check a queue, when Redis is full (docs/reliability.md). No other client's
  command runs between the reads, so they see one moment: a job moving between two states is
  never read in both or in neither.

  Only the commands named below run; any other name fails the whole call before anything is read.
  The caller keeps the batch small (a window of ids, a few keys), as it would a MULTI.

  KEYS[1] route (a key in the slot of every key read: Redis Cluster sends the call there; the script does not read it)

  ARGV[1] the first command's argument count n, ARGV[2] its name, ARGV[3..2+n] its arguments,
  then the next command the same way, to the end of ARGV

  Returns one reply per command, in order; a command that fails alone (a key holding another
  type) gives its error reply in its place, as in a MULTI.
]]
local reads = {
  exists = true, get = true, pttl = true, ttl = true, type = true,
  hget = true, hmget = true, hgetall = true, hexists = true, hlen = true, hscan = true,
  llen = true, lrange = true, lindex = true, lpos = true,
  scard = true, smembers = true, sismember = true, sscan = true,
  zcard = true, zcount = true, zrange = true, zrevrange = true, zscore = true,
}

local commands = {}
local i = 1
while i <= #ARGV do
  local count = tonumber(ARGV[i])
  local name = string.lower(ARGV[i + 1] or "")
  if count == nil or not reads[name] then
    return redis.error_reply("ERR readTogether: not a read command: " .. tostring(ARGV[i + 1]))
  end
  commands[#commands + 1] = {name, i + 2, i + 1 + count}
  i = i + 2 + count
end

local replies = {}
for c = 1, #commands do
  local command = commands[c]
  replies[c] = redis.pcall(command[1], unpack(ARGV, command[2], command[3]))
end
return replies
