// client.ts - a small client of mlsysd typed only by the contract the daemon
// serves: api.d.ts is generated from GET /openapi.json by openapi-typescript
// (run.sh), and this file must compile under tsc --strict with no casts (no
// `as`, no `any`, no non-null `!`); run.sh writes target.ts (the daemon's URL).
// Run, it checks the answers too: it posts the
// README's /solve body unchanged, narrows the answer by `solver` to read
// `latency`, posts a /sweep with inputs and axes, and reads a /batch item by
// item.
import type { components, paths } from "./api";
import { base } from "./target.js";

type Schemas = components["schemas"];
type SolveBody = paths["/solve"]["post"]["requestBody"]["content"]["application/json"];
type SolveAnswer = paths["/solve"]["post"]["responses"][200]["content"]["application/json"];
type SweepBody = paths["/sweep"]["post"]["requestBody"]["content"]["application/json"];
type SweepAnswer = paths["/sweep"]["post"]["responses"][200]["content"]["application/json"];
type BatchBody = paths["/batch"]["post"]["requestBody"]["content"]["application/json"];
type BatchAnswer = paths["/batch"]["post"]["responses"][200]["content"]["application/json"];

// JSON.parse gives `any`; a typed answer is what the contract says the route returns.
async function post<Body, Answer>(path: string, body: Body): Promise<Answer> {
  const r = await fetch(base + path, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  if (r.status !== 200) throw new Error(`${path}: ${r.status} ${await r.text()}`);
  const answer: Answer = await r.json();
  return answer;
}

function check(ok: boolean, what: string): void {
  if (!ok) throw new Error(what);
}

// The README's /solve body, unchanged.
const readmeSolve: SolveBody = {
  solver: "single_node",
  inputs: { model: "ResNet50", hardware: "A100", batch_size: 256, precision: "fp16" },
};

function latencyOf(a: SolveAnswer): number | null {
  // narrowed by the discriminator: only single_node's result has this shape
  if (a.solver === "single_node") return a.result.latency;
  return null;
}

function assumptionsOf(a: Schemas["SolveResponseCommon"]): string {
  return a.assumptions.leaves_out;
}

async function main(): Promise<void> {
  const solved = await post<SolveBody, SolveAnswer>("/solve", readmeSolve);
  const latency = latencyOf(solved);
  check(latency !== null && Math.abs(latency - 13.971410256410255) < 1e-9, `latency ${latency}`);
  check(assumptionsOf(solved).length > 0, "assumptions");

  const sweep: SweepBody = {
    solver: "single_node",
    inputs: { model: "ResNet50", hardware: "A100" },
    axes: [
      { input: "batch_size", values: [1, 32, 256] },
      { input: "hardware", values: ["A100", "H100"] },
    ],
    outputs: ["latency", "bottleneck"],
    format: "json",
  };
  const swept = await post<SweepBody, SweepAnswer>("/sweep", sweep);
  const col = swept.columns.indexOf("latency");
  check(swept.rows.length === 6 && col >= 0, `sweep rows ${swept.rows.length}`);
  // rows in axis order, the first axis outermost: (256, A100) is the fifth
  check(swept.rows[4][col] === latency, "the sweep's batch 256 on A100 is /solve's answer");

  const batch: BatchBody = {
    items: [readmeSolve, { solver: "data", catalog: "tutorial", inputs: { workload_data_rate: "1 GB/s", hardware: "A100" } }],
  };
  const answered = await post<BatchBody, BatchAnswer>("/batch", batch);
  for (const item of answered.items) {
    if ("response" in item) {
      check(item.status === 200, `items[${item.index}] status`);
      if (item.index === 0) check(latencyOf(item.response) === latency, "batch item 0 equals /solve");
    } else {
      throw new Error(`items[${item.index}]: ${item.problem.detail}`);
    }
  }
  console.log(`client: /solve latency ${latency} ms, ${swept.rows.length} sweep rows, ${answered.items.length} batch items`);
}

await main(); // a failure rejects: node prints it and exits 1
