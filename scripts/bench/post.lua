-- wrk script: POST the file named by BODY_FILE with the analyzer token from TOKEN.
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["X-Analyzer-Token"] = os.getenv("TOKEN")
local file = assert(io.open(os.getenv("BODY_FILE"), "rb"))
wrk.body = file:read("*a")
file:close()

local statuses = {}
function response(status)
  statuses[status] = (statuses[status] or 0) + 1
end

function done(summary)
  for status, count in pairs(statuses) do
    io.write(string.format("status %d: %d\n", status, count))
  end
end
