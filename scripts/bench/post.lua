-- wrk script: POST the file named by BODY_FILE with the analyzer token from TOKEN.
-- wrk itself reports "Non-2xx or 3xx responses" when any answer is not a success.
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["X-Analyzer-Token"] = os.getenv("TOKEN")
local file = assert(io.open(os.getenv("BODY_FILE"), "rb"))
wrk.body = file:read("*a")
file:close()
