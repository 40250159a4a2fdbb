-- GCRA on one bucket: the arithmetic of gcra.rs, in microseconds of the server's own clock,
-- so every replica decides on one time line. One round trip per decision.
-- KEYS[1]: the bucket.  ARGV[1]: emission interval (us).  ARGV[2]: tolerance (us).
-- Returns {1, remaining, reset_after_us} when allowed, {0, retry_after_us, reset_after_us} when not.
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000000 + tonumber(time[2])
local interval = tonumber(ARGV[1])
local tolerance = tonumber(ARGV[2])
local tat = tonumber(redis.call('GET', KEYS[1])) or now
if tat < now then
  tat = now
end
local earliest = tat - tolerance
if now < earliest then
  return {0, earliest - now, tat - now}
end
local next_tat = tat + interval
-- '%.0f': tostring() would print 16-digit times in exponent form and lose the microseconds.
redis.call('SET', KEYS[1], string.format('%.0f', next_tat), 'PX', math.ceil((next_tat - now) / 1000))
return {1, math.floor((now + tolerance + interval - next_tat) / interval), next_tat - now}
