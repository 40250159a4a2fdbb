-- A subject's sliding log and the service's (the backstop), decided together in one round trip
-- on the server's own clock: the arithmetic of sliding_log.rs, in microseconds of Redis's TIME.
-- KEYS[1]: the subject's log.  KEYS[2]: the service's log.  Each is a sorted set of arrival
-- times that expires when its newest arrival leaves the window.
-- ARGV[1], ARGV[2]: the subject's limit and period (us).  ARGV[3], ARGV[4]: the backstop's.
-- Returns {1, remaining, reset_after_us} when served, {0, retry_after_us, reset_after_us} when
-- not. A refused request is written to neither log, so it spends neither budget.
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000000 + tonumber(time[2])
-- '%.0f': tostring() would print 16-digit times in exponent form and lose the microseconds.
local function us(value)
  return string.format('%.0f', value)
end

-- Forgets what left the window; returns the count and the wait before one more fits (0: none).
local function wait(key, limit, period)
  redis.call('ZREMRANGEBYSCORE', key, '-inf', us(now - period))
  local count = redis.call('ZCARD', key)
  if count < limit then
    return count, 0
  end
  local oldest = redis.call('ZRANGE', key, count - limit, count - limit, 'WITHSCORES')
  return count, tonumber(oldest[2]) + period - now
end

-- Records an arrival now (a unique member even when two share a microsecond).
local function add(key, period)
  local member = us(now)
  local suffix = 0
  while redis.call('ZADD', key, 'NX', us(now), member) == 0 do
    suffix = suffix + 1
    member = us(now) .. '.' .. suffix
  end
  redis.call('PEXPIRE', key, math.ceil(period / 1000))
end

local subject_limit, subject_period = tonumber(ARGV[1]), tonumber(ARGV[2])
local global_limit, global_period = tonumber(ARGV[3]), tonumber(ARGV[4])
local subject_count, subject_wait = wait(KEYS[1], subject_limit, subject_period)
local global_count, global_wait = wait(KEYS[2], global_limit, global_period)
local retry = math.max(subject_wait, global_wait)
if retry > 0 then
  local newest = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
  local reset = subject_period
  if newest[2] then
    reset = tonumber(newest[2]) + subject_period - now
  end
  return {0, retry, reset}
end
add(KEYS[1], subject_period)
add(KEYS[2], global_period)
local remaining = math.min(subject_limit - subject_count, global_limit - global_count) - 1
return {1, remaining, subject_period}
