-- Integers as the strings redis.call gets anyway. Lua formats a number argument with "%.14g"
-- on every call, which costs about what a small command does; counters such as attempts take
-- few distinct values in one script call, so each is formatted once.
local intTexts = {}

local function intText(n)
  local text = intTexts[n]
  if not text then
    text = string.format("%d", n)
    intTexts[n] = text
  end
  return text
end
