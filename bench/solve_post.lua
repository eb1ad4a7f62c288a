-- wrk script: POST /solve with the same inputs as the GET benchmark
-- (bench/run.sh: wrk -s bench/solve_post.lua http://127.0.0.1:PORT/solve).
wrk.method = "POST"
wrk.body = '{"solver":"single_node","inputs":{"model":"ResNet50","hardware":"A100","batch_size":256,"precision":"fp16"}}'
wrk.headers["Content-Type"] = "application/json"
