-- mix.lua - the request mix of the load test (tests/load/run.sh) and of the
-- leak check (tests/leak/run.sh), for wrk.
--
--   MIX_BAD=1        also send malformed requests (4xx on purpose)
--   MIX_REQUESTS=N   exit after N responses (use with -t1; 0: run for -d)
--
-- Without MIX_BAD every request is valid: any non-2xx is a failure.

local include_bad = os.getenv("MIX_BAD") == "1"
local stop_after = tonumber(os.getenv("MIX_REQUESTS") or "0") or 0

local json = {["Content-Type"] = "application/json"}
local reqs = {}
local function add(method, path, body, headers)
  reqs[#reqs + 1] = wrk.format(method, path, headers, body)
end

-- /solve over GET (query strings) and POST (JSON bodies), every solver
add("GET", "/solve/single_node?model=ResNet50&hardware=A100&batch_size=256&precision=fp16")
add("GET", "/solve/single_node?model=Llama3_8B&hardware=H100&batch_size=8&is_training=true&seq_len=4096")
add("GET", "/solve/data?hardware=A100&workload_data_rate=100%20GB/s")
add("GET", "/solve/transformation?batch_size=256&sample_size_bytes=500%20KB&cpu_throughput=2%20GB/s&accelerator_step_time=7.24%20ms")
add("GET", "/solve/single_node?model=ResNet50&model.inference_flops=4.1%20GFLOP&hardware=A100&catalog=tutorial")
add("POST", "/solve", '{"solver":"single_node","inputs":{"model":"ResNet50","hardware":"A100","batch_size":256,"precision":"fp16"}}', json)
add("POST", "/solve", '{"solver":"pipeline","inputs":{"model":"ResNet50","hardware":"A100","batch_size":256,"sample_size_bytes":"500 KB","cpu_workers":8}}', json)
add("POST", "/solve", '{"solver":"data","inputs":{"hardware":{"base":"A100","storage":{"capacity":"1 TB","bandwidth":"7 GB/s"}},"workload_data_rate":"5 GB/s"}}', json)
add("POST", "/solve", '{"solver":"transformation","catalog":"tutorial","inputs":{"batch_size":64,"sample_size_bytes":"150528 byte","cpu_throughput":"1 GB/s","accelerator_step_time":"20 ms"}}', json)
-- /sweep: JSON with transitions, CSV, NDJSON
add("GET", "/sweep/single_node?model=ResNet50&hardware=A100,H100&batch_size=1,8,64,512&format=csv")
add("GET", "/sweep/data?hardware=A100,H100,T4&workload_data_rate=1,10,100,1000&format=ndjson")
add("POST", "/sweep", '{"solver":"pipeline","inputs":{"model":"ResNet50","sample_size_bytes":"500 KB","cpu_throughput":"2 GB/s"},"axes":[{"input":"batch_size","values":[32,64,128,256]},{"input":"hardware","values":["A100","H100"]}],"outputs":["step_time","binding_stage","accelerator_utilization"]}', json)
add("POST", "/sweep", '{"solver":"single_node","inputs":{"model":"ResNet50","hardware":"A100"},"axes":[{"input":"batch_size","geomspace":{"start":1,"stop":4096,"count":13}},{"input":"precision","values":["fp32","fp16","int8"]}],"format":"json"}', json)
-- the rest of the surface
add("GET", "/catalog/hardware/A100")
add("GET", "/solvers/pipeline")
add("GET", "/healthz")

if include_bad then
  add("POST", "/solve", '{"solver":"single_node","inputs":{"model":"ResNet50","hardware":"A100","batch_size":-1}}', json)
  add("POST", "/solve", '{"solver":"single_node","inputs":{"model":"ResNet5O","hardware":"A100"}}', json)
  add("POST", "/solve", '{"solver":"single_node","inputs":{"model":"ResNet50","hardware":"A100","efficiency":NaN}}', json)
  add("POST", "/solve", '{"solver":"single_node","inputs":{"model":"ResNet50","hardware":"A100"},"solver":"x"}', json)
  add("POST", "/solve", '{"solver":"data","inputs":{"hardware":"A100","workload_data_rate":"5 ms"}}', json)
  add("POST", "/solve", '{"solver":"single_node","inputs":{"model":{"base":"ResNet50","bogus":1},"hardware":"A100"}}', json)
  add("POST", "/solve", '{"solver":', json)
  add("POST", "/solve", "\255\254", json)
  add("POST", "/solve", '{}', {["Content-Type"] = "text/plain"})
  add("PUT", "/solve", '{}', json)
  add("GET", "/solve/single_node?model=%FF&hardware=A100")
  add("GET", "/solve/single_node?model=ResNet50&hardware=A100&bogus=1")
  add("GET", "/sweep/single_node?model=ResNet50&hardware=A100&batch_size=1,x")
  add("POST", "/sweep", '{"solver":"single_node","inputs":{"model":"ResNet50","hardware":"A100"},"axes":[{"input":"batch_size","range":{"start":1,"stop":1e12,"step":1}}]}', json)
  add("POST", "/sweep", '{"solver":"single_node","inputs":{"model":"ResNet50","hardware":"A100"},"axes":[{"input":"precision","values":["fp16","fp64"]}]}', json)
  add("POST", "/sweep", '{"solver":"single_node","inputs":{"model":"ResNet50","hardware":"A100"},"axes":[{"input":"batch_size","values":[-1,0,1]}],"format":"csv"}', json)
  add("POST", "/solve", '{"pad":"' .. string.rep("x", 70000) .. '"}', json)
  add("GET", "/catalog/models/NoSuchModel")
  add("GET", "/nope")
  add("GET", "/metrics")
  add("GET", "/openapi.json")
end

local i = 0
request = function()
  i = i % #reqs + 1
  return reqs[i]
end

if stop_after > 0 then
  -- wrk always runs for its full -d: with -t1, leave the process once done.
  local n, by_class = 0, {}
  response = function(status, headers, body)
    n = n + 1
    local class = math.floor(status / 100) .. "xx"
    by_class[class] = (by_class[class] or 0) + 1
    if n >= stop_after then
      local parts = {}
      for k, v in pairs(by_class) do parts[#parts + 1] = k .. "=" .. v end
      table.sort(parts)
      io.write(string.format("mix: %d responses (%s)\n", n, table.concat(parts, " ")))
      io.flush()
      os.exit(0)
    end
  end
end
