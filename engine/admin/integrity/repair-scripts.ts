/**
 * The Lua of the safe repairs (docs/integrity.md, "Repairs"). Each script re-checks, inside the
 * script, the broken condition the checker reported and writes nothing when the state moved on;
 * it answers `{1, detail}` when it repaired, `{0, reason}` when it did not. They run with EVAL
 * (engine/admin/integrity/repair-run.ts): repairs are rare operator actions, not a hot path, so
 * they stay out of the worker's script registry (lua/).
 *
 * Every key a script touches is passed in KEYS, under the queue's base, so a hash-tagged prefix
 * keeps them in one Cluster slot (docs/redis-keys.md).
 */

/**
 * member-without-hash: removes a job id whose hash is gone from the state structures.
 * KEYS[1] job hash, KEYS[2..4] wait, paused, active (lists), KEYS[5..10] prioritized, delayed,
 * group-delayed, waiting-children, completed, failed (zsets), KEYS[11] stalled, KEYS[12] groups
 * (the ring), KEYS[13..] group lines. ARGV[1] id, ARGV[2..] the gid of each group line.
 * A group whose line this empties leaves the ring, as every writer of a line does.
 */
export const REMOVE_DANGLING_ID = `
if redis.call('EXISTS', KEYS[1]) == 1 then return {0, 'the job hash exists'} end
local id = ARGV[1]
local names = {'wait', 'paused', 'active', 'prioritized', 'delayed', 'group-delayed',
  'waiting-children', 'completed', 'failed'}
local removed = {}
for i = 2, 10 do
  local command = i <= 4 and 'LREM' or 'ZREM'
  local reply = i <= 4 and redis.pcall(command, KEYS[i], 0, id) or redis.pcall(command, KEYS[i], id)
  if type(reply) == 'number' and reply > 0 then table.insert(removed, names[i - 1]) end
end
for i = 13, #KEYS do
  local reply = redis.pcall('LREM', KEYS[i], 0, id)
  if type(reply) == 'number' and reply > 0 then
    local gid = ARGV[i - 11]
    table.insert(removed, 'group:' .. gid .. ':wait')
    if redis.call('LLEN', KEYS[i]) == 0 then redis.call('LREM', KEYS[12], 0, gid) end
  end
end
if #removed == 0 then return {0, 'the id is in no state structure any more'} end
redis.pcall('SREM', KEYS[11], id)
return {1, table.concat(removed, ',')}
`;

/**
 * active-unlocked: marks an active id with no lock as stalled, so the next stalled check
 * (lua/moveStalledJobsToWait-8.lua, phase 1) recovers it with its usual accounting.
 * KEYS[1] job hash, KEYS[2] active, KEYS[3] the job's lock, KEYS[4] stalled. ARGV[1] id.
 */
export const MARK_STALLED = `
local id = ARGV[1]
if redis.call('EXISTS', KEYS[1]) == 0 then return {0, 'the job hash is gone'} end
if not redis.call('LPOS', KEYS[2], id) then return {0, 'the job is no longer active'} end
if redis.call('EXISTS', KEYS[3]) == 1 then return {0, 'the job holds a lock'} end
if redis.call('SISMEMBER', KEYS[4], id) == 1 then return {0, 'the job is already marked stalled'} end
redis.call('SADD', KEYS[4], id)
return {1, 'marked stalled'}
`;

/**
 * priority-counter: raises `pc` to a prioritized member's counter (score mod 2^32), so later
 * inserts of the same priority queue behind it. KEYS[1] prioritized, KEYS[2] pc. ARGV[1] id.
 */
export const RAISE_PRIORITY_COUNTER = `
local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not score then return {0, 'the job is no longer prioritized'} end
local counter = math.fmod(tonumber(score), 4294967296)
local pc = tonumber(redis.call('GET', KEYS[2]) or '0') or 0
if counter <= pc then return {0, 'pc already covers the job'} end
redis.call('SET', KEYS[2], string.format('%d', counter))
return {1, 'pc ' .. string.format('%d', pc) .. ' -> ' .. string.format('%d', counter)}
`;

/**
 * events-over-cap: trims the events stream to its cap (`MAXLEN ~`, then exactly if whole-node
 * trimming left it over the tolerance). KEYS[1] meta, KEYS[2] events. ARGV[1] default cap,
 * ARGV[2] minimum tolerance, ARGV[3] tolerance ratio (engine/admin/integrity/events-cap.ts).
 */
export const TRIM_EVENTS = `
local cap = tonumber(redis.call('HGET', KEYS[1], 'opts.maxLenEvents') or '') or tonumber(ARGV[1])
local slack = math.max(tonumber(ARGV[2]), math.ceil(cap * tonumber(ARGV[3])))
local before = redis.call('XLEN', KEYS[2])
if before <= cap + slack then return {0, 'the stream is within its cap'} end
redis.call('XTRIM', KEYS[2], 'MAXLEN', '~', cap)
if redis.call('XLEN', KEYS[2]) > cap + slack then redis.call('XTRIM', KEYS[2], 'MAXLEN', cap) end
return {1, before .. ' -> ' .. redis.call('XLEN', KEYS[2]) .. ' entries (cap ' .. cap .. ')'}
`;

/**
 * hash-without-state: puts a finished job no structure holds back into `completed` (it has a
 * `returnvalue`) or `failed` (a `failedReason`), scored by `finishedOn` as moveToFinished does.
 * KEYS[1] job hash, KEYS[2] lock, KEYS[3..5] wait, paused, active, KEYS[6..11] prioritized,
 * delayed, group-delayed, waiting-children, completed, failed, KEYS[12] the group line and
 * KEYS[13] the group's active set (when ARGV[2] names a group). ARGV[1] id, ARGV[2] gid or ''.
 */
export const PLACE_FINISHED = `
local id = ARGV[1]
local fields = redis.call('HMGET', KEYS[1], 'timestamp', 'finishedOn', 'returnvalue',
  'failedReason', 'gid')
if not fields[1] then return {0, 'the job hash is gone'} end
if (fields[5] or '') ~= ARGV[2] then return {0, 'the job changed group'} end
for i = 3, 5 do
  if redis.call('LPOS', KEYS[i], id) then return {0, 'the job is in a state again'} end
end
for i = 6, 11 do
  if redis.call('ZSCORE', KEYS[i], id) then return {0, 'the job is in a state again'} end
end
if ARGV[2] ~= '' then
  if redis.call('LPOS', KEYS[12], id) or redis.call('SISMEMBER', KEYS[13], id) == 1 then
    return {0, 'the job is in a state again'}
  end
end
if redis.call('EXISTS', KEYS[2]) == 1 then return {0, 'the job holds a lock'} end
local finishedOn = tonumber(fields[2] or '')
if not finishedOn then
  return {0, 'report-only: an unfinished job; placing it would run it (operator decision)'}
end
if fields[3] then
  redis.call('ZADD', KEYS[10], finishedOn, id)
  return {1, 'completed'}
end
if fields[4] then
  redis.call('ZADD', KEYS[11], finishedOn, id)
  return {1, 'failed'}
end
return {0, 'report-only: finished with neither returnvalue nor failedReason'}
`;
