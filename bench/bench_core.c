/* bench_core.c - microbenchmarks of the core, without HTTP.
 *
 *   bench_core                 all timings below, one "RESULT key value unit" line each
 *   bench_core --quick         fewer iterations (a smoke run: checks it works, figures are noisy)
 *   bench_core --cpu-time      time by the process's CPU clock instead of the wall clock: on a
 *                              shared machine the figures then leave out the time other processes
 *                              take the CPU away (not their effect on the caches); the checks of
 *                              docs/BENCHMARKS.md are wall-clock figures
 *   bench_core --verify N      fmt_double / fmt_pyrepr against the previous printf+strtod
 *                              formatter (fmt_double_reference), and fmt_g4 against printf's %.4g,
 *                              on N random doubles (decimal midpoints among them); exit 1 on a mismatch
 *
 * Timings (each the median of RUNS runs of many iterations):
 *   solve_single_node_ns   one single_node run() (ResNet50 / A100 / batch 256 / fp16), inputs parsed once
 *   solve_pipeline_ns      one pipeline run() (ResNet50 / A100 / batch 512 / 500 KB samples / 8 workers)
 *   solve_<solver>_ns      one run() of each LLM serving solver and each training solver that
 *                          does not search, inputs in SOLVES below; batching_optimizer is
 *                          reported per batch size searched (solve_batching_optimizer_per_batch_ns);
 *                          solve_serving_capacity_sweep_point_ns is one without composing the trace,
 *                          as a sweep's point runs
 *   example_<solver>_ns    one run() of every registered solver on its descriptor's example
 *                          (example_json), so a new solver is timed without an entry here; the
 *                          iterations are sized from one run (about 0.03 s per run)
 *   mode_<case>_mlsysim_ns one run() in mlsysim mode and mode_<case>_measured_ns in measured mode
 *   mode_<case>_ratio      (issue 24: "calibration": "measured"), the same inputs (MODES below),
 *                          composing the trace as /solve does; measured / mlsysim, target <= 1.10.
 *                          The two modes' runs alternate, so both see the same machine load.
 *                          mode_<case>_quiet_*: the same without the trace, as a sweep's point runs
 *   solve_serving_simulation_10k_r<R>_ms
 *                          one serving_simulation run() of 10,000 requests (Llama-3-8B on one
 *                          H200, 2,000-token prompts, exponential answers of mean 300 tokens,
 *                          composing the trace) at R requests/s: light (1: 1.7M iterations of
 *                          one or two sequences), busy (6: 228k iterations of 13) and
 *                          overloaded (20: 13k iterations of 229); issue 27's budget is 50 ms
 *   sweep_serving_simulation_20pt_ms
 *                          the 20 points of a sweep over arrival_rate_qps 1..20 of the same
 *                          question with 1,000 requests each, run() as a sweep's points are
 *                          (no trace); issue 27's budget is 1 s
 *   inputs_check_ns        the generic bound checks of the single_node inputs (a sweep does them per point)
 *   fmt_double_ns          one fmt_double of a value taken from the sweep's own outputs
 *   fmt_double_ref_ns      the same values through the reference search (fmt_double_reference)
 *   fmt_double_random_ns   fmt_double of random bit patterns (all exponents), and _ref_ of the same
 *   app_healthz_ns         app_handle() of GET /healthz: the routing floor, no sockets
 *   app_solve_get_ns       app_handle() of GET /solve/single_node?... (parse, solve, JSON response)
 *   app_solve_post_ns      app_handle() of POST /solve with the same inputs as JSON
 *   app_mode_sweep_serving_ratio  a point of a CSV sweep of serving (Llama3_70B on H100 at fp8, tp 2,
 *                          batch_size 1..2048 x seq_len 512..4096) in measured mode over mlsysim mode
 *   app_mode_<case>_ratio  a whole POST /solve in measured mode over the same in mlsysim mode,
 *                          each body naming its mode (single_node, serving at tp 2,
 *                          distributed; REQ below), the modes
 *                          alternating over RUNS rounds, medians (_mlsysim_ns, _measured_ns)
 *   fmtbound_csv_pps       the formatting bound: rows per second that the sweep's CSV row writer
 *                          (the same strbuf calls: sb_number = fmt_double, sb_csv_field, ...) formats
 *                          for the rows of the 1M-point benchmark sweep, with the rows solved
 *                          beforehand and no HTTP; fmtbound_json_pps and fmtbound_ndjson_pps the
 *                          same for JSON and NDJSON rows (NDJSON's member names written beforehand)
 *   inproc_sweep_csv_pps   a 1M-point CSV sweep through app_handle + sweep_stream_read (solve +
 *                          format, no HTTP); inproc_sweep_json_pps and _ndjson_pps the same as JSON
 *                          and NDJSON
 *
 * The benchmark sweep (the same as bench/run.sh sends over HTTP): single_node, ResNet50 on A100,
 * fp16, batch_size 1..1000 x efficiency geomspace(0.01, 1, 1000). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench/bench_util.h"

#include "catalog/catalog.h"
#include "core/numfmt.h"
#include "core/roofline.h"
#include "core/solver.h"
#include "server/app.h"
#include "server/inputs.h"
#include "server/strbuf.h"
#include "server/metrics.h"
#include "server/reply.h"
#include "server/sweep.h"

#define RUNS 7

static int g_quick;
static const char *g_only; /* --only SUBSTRING: run the timings whose key contains it */
static volatile size_t g_sink;
static clockid_t g_clock = CLOCK_MONOTONIC; /* --cpu-time: CLOCK_PROCESS_CPUTIME_ID */

static double bench_now(void) { return clock_s(g_clock); }

static int want(const char *key) { return !g_only || strstr(key, g_only) != NULL; }


static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void result(const char *key, double value, const char *unit)
{
    printf("RESULT %-26s %.6g %s\n", key, value, unit);
    fflush(stdout);
}

static void die(const char *what, const char *msg)
{
    fprintf(stderr, "bench_core: %s: %s\n", what, msg);
    exit(2);
}

/* One run() of s as a sweep point or a timed solve does it: the outputs'
 * trace and warnings emptied first; a refusal ends the benchmark. */
static inline void run_or_die(const solver_desc *s, const solver_inputs *in, solver_outputs *out, const char *what)
{
    solver_error se;
    se.status = 0;
    out->n_trace = 0;
    out->n_warnings = 0;
    if (s->run(in, out, &se) != 0)
        die(what, se.detail);
}

/* --- set-up ----------------------------------------------------------------------------- */

static catalog *g_cat;
static const catalog_edition *g_ed;
static config g_cfg;
static app g_app;

static void setup(void)
{
    char msg[600];
    if (catalog_load(&g_cat, NULL, msg, sizeof msg) != 0)
        die("catalog", msg);
    g_ed = catalog_default_edition(g_cat);
    config_defaults(&g_cfg);
    g_cfg.sweep_max_points = 20000000;
    metrics_init();
    if (app_init(&g_app, g_cat, &g_cfg, msg, sizeof msg) != 0)
        die("app", msg);
    atomic_store(&g_app.ready, true);
}

static solver_inputs *parse_inputs(const solver_desc *s, const char *json)
{
    json_error_t je;
    json_t *j = json_loads(json, 0, &je);
    if (!j)
        die("inputs JSON", je.text);
    solver_inputs *in = calloc(1, sizeof *in);
    api_error err;
    if (inputs_from_json(s, j, g_ed, in, &err) != 0)
        die("inputs", err.detail);
    json_decref(j);
    return in;
}

/* --- solver timings ------------------------------------------------------------------- */

static double time_solve(const solver_desc *s, const solver_inputs *in, long iters, bool quiet)
{
    solver_outputs *out = calloc(1, sizeof *out);
    out->quiet = quiet;
    double runs[RUNS];
    for (int r = 0; r < RUNS; r++) {
        double t0 = bench_now();
        for (long i = 0; i < iters; i++) {
            run_or_die(s, in, out, "solve");
        }
        runs[r] = (bench_now() - t0) / (double)iters * 1e9;
        g_sink += (size_t)out->v[0].num;
    }
    free(out);
    return median(runs, RUNS);
}

static double time_check(const solver_desc *s, const solver_inputs *in, long iters)
{
    double runs[RUNS];
    for (int r = 0; r < RUNS; r++) {
        double t0 = bench_now();
        for (long i = 0; i < iters; i++) {
            api_error err;
            if (inputs_check(s, in, &err) != 0)
                die("check", err.detail);
        }
        runs[r] = (bench_now() - t0) / (double)iters * 1e9;
    }
    return median(runs, RUNS);
}

/* The serving and training solvers timed one run() at a time: Llama-3-70B serving as in
 * docs/tutorials/sizing-an-llm-service.md, training on the 256-GPU cluster. `per` divides the
 * time (batching_optimizer runs serving + tail_latency once per batch size searched). Two
 * cases have loops whose length grows with the input, so a larger one is timed too:
 * serving_capacity's replica search (93 replicas at 1,000 requests/s, ~930 at 10,000) and the Erlang C sum
 * of tail_latency (c terms). A `quiet` case is a sweep's point: run() skips the trace. */
static const struct {
    const char *key, *solver, *inputs;
    double per;
    bool quiet;
} SOLVES[] = {
    {"solve_serving_ns", "serving",
     "{\"model\":\"Llama3_70B\",\"hardware\":\"B200\",\"precision\":\"fp8\",\"seq_len\":4096,\"batch_size\":32}", 1, false},
    {"solve_continuous_batching_ns", "continuous_batching",
     "{\"model\":\"Llama3_70B\",\"hardware\":\"B200\",\"precision\":\"fp8\",\"seq_len\":4096,"
     "\"max_batch_size\":32}",
     1, false},
    {"solve_serving_capacity_ns", "serving_capacity",
     "{\"model\":\"Llama3_70B\",\"hardware\":\"B200\",\"precision\":\"fp8\",\"seq_len\":4096,"
     "\"output_tokens\":256,\"qps\":10,\"target_p99_latency_ms\":15000}",
     1, false},
    {"solve_serving_capacity_sweep_point_ns", "serving_capacity",
     "{\"model\":\"Llama3_70B\",\"hardware\":\"B200\",\"precision\":\"fp8\",\"seq_len\":4096,"
     "\"output_tokens\":256,\"qps\":10,\"target_p99_latency_ms\":15000}",
     1, true},
    {"solve_serving_capacity_q1000_ns", "serving_capacity",
     "{\"model\":\"Llama3_70B\",\"hardware\":\"B200\",\"precision\":\"fp8\",\"seq_len\":4096,"
     "\"output_tokens\":256,\"qps\":1000,\"target_p99_latency_ms\":15000}",
     1, false},
    {"solve_serving_capacity_q10000_ns", "serving_capacity",
     "{\"model\":\"Llama3_70B\",\"hardware\":\"B200\",\"precision\":\"fp8\",\"seq_len\":4096,"
     "\"output_tokens\":256,\"qps\":10000,\"target_p99_latency_ms\":15000,\"max_replicas\":4096}",
     1, false},
    {"solve_weight_streaming_ns", "weight_streaming",
     "{\"model\":\"Llama3_70B\",\"hardware\":\"Cerebras_CS3\",\"seq_len\":4096}", 1, false},
    {"solve_tail_latency_ns", "tail_latency",
     "{\"arrival_rate_qps\":10,\"service_latency_ms\":92.07,\"num_replicas\":2}", 1, false},
    {"solve_tail_latency_c100_ns", "tail_latency",
     "{\"arrival_rate_qps\":1000,\"service_latency_ms\":92.07,\"num_replicas\":100}", 1, false},
    {"solve_inference_scaling_ns", "inference_scaling",
     "{\"model\":\"Llama3_70B\",\"hardware\":\"B200\",\"precision\":\"fp8\",\"context_length\":4096}", 1, false},
    /* No batch size meets this SLA (a batch decodes seq_len tokens), so all 256 are tried; a
     * feasible case stops at the largest qualifying size, scanning down from the top. */
    {"solve_batching_optimizer_per_batch_ns", "batching_optimizer",
     "{\"model\":\"Llama3_70B\",\"hardware\":\"B200\",\"precision\":\"fp8\",\"seq_len\":4096,"
     "\"sla_latency_ms\":15000,\"arrival_rate_qps\":10,\"max_search_batch\":256}",
     256, false},
    {"solve_training_memory_ns", "training_memory",
     "{\"model\":\"Llama3_70B\",\"hardware\":\"H100\",\"batch_size\":1,\"seq_len\":4096,\"tp_size\":8,"
     "\"pp_size\":2,\"dp_size\":16,\"zero_stage\":1}",
     1, false},
    {"solve_distributed_ns", "distributed",
     "{\"model\":\"Llama3_70B\",\"fleet\":\"Research_256\",\"tp_size\":8,\"pp_size\":2,\"batch_size\":256,"
     "\"microbatch_count\":8}",
     1, false},
    {"solve_moe_routing_ns", "moe_routing",
     "{\"model\":\"Mixtral_8x7B\",\"batch_size\":8,\"seq_len\":4096,\"ep_size\":8,\"fleet\":\"Research_256\"}",
     1, false},
    {"solve_topology_ns", "topology", "{\"fabric\":\"InfiniBand_NDR\",\"topology\":\"fat_tree\",\"num_nodes\":64}",
     1, false},
    {"solve_network_roofline_ns", "network_roofline", "{\"model\":\"Llama3_70B\",\"fleet\":\"Research_256\"}", 1, false},
    {"solve_checkpoint_ns", "checkpoint", "{\"model\":\"Llama3_70B\",\"hardware\":\"H100\"}", 1, false},
    {"solve_scaling_ns", "scaling", "{\"compute_budget\":\"1e24 flop\"}", 1, false},
};

/* Measured mode against mlsysim mode on the same inputs: the three solvers with
 * measured physics, and serving at tp 2 (its all-reduces). */
static const struct {
    const char *key, *solver, *inputs;
} MODES[] = {
    {"single_node", "single_node", "{\"model\":\"ResNet50\",\"hardware\":\"A100\",\"batch_size\":256,\"precision\":\"fp16\"}"},
    {"serving", "serving",
     "{\"model\":\"Llama3_70B\",\"hardware\":\"H100\",\"seq_len\":2048,\"batch_size\":4,\"precision\":\"fp8\"}"},
    {"serving_tp2", "serving",
     "{\"model\":\"Llama3_70B\",\"hardware\":\"H100\",\"seq_len\":2048,\"batch_size\":4,\"precision\":\"fp8\","
     "\"tp\":2}"},
    {"distributed", "distributed",
     "{\"model\":\"Llama3_70B\",\"fleet\":{\"node\":\"DGX_H100\",\"count\":4,\"fabric\":\"InfiniBand_NDR\"},"
     "\"tp_size\":8,\"pp_size\":2,\"batch_size\":64,\"seq_len\":4096,\"precision\":\"bf16\",\"step_model\":\"sharded\"}"},
};

/* One run() of s on `in` in mlsysim mode (*sim) and in measured mode (*meas), ns: RUNS
 * runs of `iters` each, the modes alternating run by run (and which goes first), medians. */
static void time_modes(const solver_desc *s, const solver_inputs *in, long iters, bool quiet, double *sim, double *meas)
{
    solver_inputs *m[2];
    double runs[2][RUNS];
    solver_outputs *out = calloc(1, sizeof *out);
    out->quiet = quiet;
    for (int k = 0; k < 2; k++) {
        m[k] = malloc(sizeof *m[k]);
        *m[k] = *in; /* shares the parsed records: read only */
        m[k]->calibration = k ? CALIBRATION_MEASURED : CALIBRATION_MLSYSIM;
    }
    for (int r = 0; r < RUNS; r++)
        for (int j = 0; j < 2; j++) {
            int k = (r + j) % 2;
            double t0 = bench_now();
            for (long i = 0; i < iters; i++) {
                run_or_die(s, m[k], out, "solve");
            }
            runs[k][r] = (bench_now() - t0) / (double)iters * 1e9;
            g_sink += (size_t)out->v[0].num;
        }
    *sim = median(runs[0], RUNS);
    *meas = median(runs[1], RUNS);
    free(m[0]);
    free(m[1]);
    free(out);
}

/* serving_simulation (issue 27's speed goal): milliseconds per run() of 10,000 requests at a
 * light, a busy and an overloaded rate, and per 20-point sweep over the rate. */
#define SIM_INPUTS                                                                                                  \
    "{\"model\":\"Llama3_8B\",\"hardware\":\"H200\",\"prompt_tokens\":2000,\"output_tokens\":300,"                    \
    "\"output_distribution\":\"exponential\",\"arrival_rate_qps\":1,\"num_requests\":%d}"

static int input_index(const solver_desc *s, const char *name)
{
    for (size_t i = 0; i < s->n_inputs; i++)
        if (!strcmp(s->inputs[i].name, name))
            return (int)i;
    die("no input", name);
    return -1;
}

static void bench_serving_simulation(void)
{
    const solver_desc *s = solver_at((size_t)solver_find("serving_simulation"));
    char json[512];
    static const double RATES[] = {1, 6, 20};
    snprintf(json, sizeof json, SIM_INPUTS, 10000);
    solver_inputs *in = parse_inputs(s, json);
    const int rate = input_index(s, "arrival_rate_qps");
    for (size_t k = 0; k < sizeof RATES / sizeof RATES[0]; k++) {
        char key[96];
        snprintf(key, sizeof key, "solve_serving_simulation_10k_r%g_ms", RATES[k]);
        if (!want(key))
            continue;
        in->v[rate].num = RATES[k];
        result(key, time_solve(s, in, 1, false) / 1e6, "ms");
    }
    free(in);
    if (!want("sweep_serving_simulation_20pt_ms"))
        return;
    snprintf(json, sizeof json, SIM_INPUTS, 1000);
    in = parse_inputs(s, json);
    solver_outputs *out = calloc(1, sizeof *out);
    out->quiet = true;
    double runs[RUNS];
    for (int r = 0; r < RUNS; r++) {
        double t0 = now_s();
        for (int p = 1; p <= 20; p++) {
            in->v[rate].num = p;
            run_or_die(s, in, out, "solve");
            g_sink += (size_t)out->v[1].num;
        }
        runs[r] = (now_s() - t0) * 1e3;
    }
    result("sweep_serving_simulation_20pt_ms", median(runs, RUNS), "ms");
    free(out);
    free(in);
}

/* --- the benchmark sweep's rows ----------------------------------------------------------- */

#define SW_B 1000   /* batch_size 1..1000 */
#define SW_E 1000   /* efficiency geomspace(0.01, 1, 1000) */

typedef struct {
    double batch, eff;
    output_value v[SOLVER_MAX_OUTPUTS];
} row;

/* Solve rows [p0, p0 + n) of the benchmark sweep (the sweep's point order: the last axis fastest). */
static void solve_rows(const solver_desc *s, solver_inputs *in, solver_outputs *out, row *rows, long p0, long n)
{
    for (long i = 0; i < n; i++) {
        long p = p0 + i;
        double b = (double)(1 + p / SW_E);
        double e = 0.01 * pow(1 / 0.01, (double)(p % SW_E) / (double)(SW_E - 1));
        in->v[RL_BATCH_SIZE].num = b;
        in->v[RL_EFFICIENCY].num = e;
        run_or_die(s, in, out, "sweep row");
        rows[i].batch = b;
        rows[i].eff = e;
        memcpy(rows[i].v, out->v, sizeof rows[i].v);
    }
}

typedef enum { ROWS_CSV, ROWS_JSON, ROWS_NDJSON } row_format;

/* NDJSON's member names, written beforehand: `"batch_size":`, `,"efficiency":`, `,"<output>":`... */
typedef struct {
    char text[2048];
    size_t off[SOLVER_MAX_OUTPUTS + 3]; /* key i is text[off[i] .. off[i + 1]) */
} row_keys;

static void row_keys_init(row_keys *k, const solver_desc *s)
{
    size_t n = 0;
    k->off[0] = 0;
    n += (size_t)snprintf(k->text + n, sizeof k->text - n, "\"batch_size\":");
    k->off[1] = n;
    n += (size_t)snprintf(k->text + n, sizeof k->text - n, ",\"efficiency\":");
    k->off[2] = n;
    for (size_t i = 0; i < s->n_outputs; i++) {
        n += (size_t)snprintf(k->text + n, sizeof k->text - n, ",\"%s\":", s->outputs[i].name);
        k->off[i + 3] = n;
    }
}

static void put_key(strbuf *b, const row_keys *k, size_t i) { sb_append(b, k->text + k->off[i], k->off[i + 1] - k->off[i]); }

/* The row layouts of server/sweep_format.c (sweep_write_row), with its cell writer row_output_value,
 * for a solved row; NDJSON's member names written beforehand. */
static void put_row(strbuf *b, const solver_desc *s, const row_keys *keys, const row *r, row_format f, bool first)
{
    bool csv = f == ROWS_CSV, nd = f == ROWS_NDJSON;
    if (f == ROWS_JSON)
        sb_puts(b, first ? "[" : ",[");
    else if (nd)
        sb_putc(b, '{');
    if (nd)
        put_key(b, keys, 0);
    sb_number(b, r->batch);
    if (nd)
        put_key(b, keys, 1);
    else
        sb_putc(b, ',');
    sb_number(b, r->eff);
    for (size_t k = 0; k < s->n_outputs; k++) {
        if (nd)
            put_key(b, keys, k + 2);
        else
            sb_putc(b, ',');
        row_output_value(b, &s->outputs[k], &r->v[k], csv);
    }
    sb_puts(b, nd ? ",\"error\":null}\n" : csv ? ",\r\n" : ",null]");
}

/* Rows per second of formatting alone, over `points` rows of the benchmark sweep. Rows are solved
 * in blocks outside the timed region; the writer resets its buffer at 32 KiB like sweep.c. */
static double format_bound(const solver_desc *s, solver_inputs *in, long points, row_format f, double *bytes_per_row)
{
    enum { BLOCK = 65536 };
    row_keys keys;
    row_keys_init(&keys, s);
    row *rows = malloc(sizeof *rows * BLOCK);
    solver_outputs *out = calloc(1, sizeof *out);
    strbuf b;
    sb_init(&b);
    double t = 0;
    size_t bytes = 0;
    for (long p0 = 0; p0 < points; p0 += BLOCK) {
        long n = points - p0 < BLOCK ? points - p0 : BLOCK;
        solve_rows(s, in, out, rows, p0, n);
        double t0 = bench_now();
        for (long i = 0; i < n; i++) {
            put_row(&b, s, &keys, &rows[i], f, p0 + i == 0);
            if (b.len >= 32768) {
                bytes += b.len;
                sb_reset(&b);
            }
        }
        t += bench_now() - t0;
    }
    bytes += b.len;
    g_sink += bytes;
    if (bytes_per_row)
        *bytes_per_row = (double)bytes / (double)points;
    sb_free(&b);
    free(out);
    free(rows);
    return (double)points / t;
}

/* --- formatting ------------------------------------------------------------------------------ */

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint64_t rng(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static double random_double(int kind)
{
    for (;;) {
        uint64_t bits = rng();
        switch (kind % 6) {
        case 1: bits &= 0xFFF0000000000000ull; break;                 /* powers of two */
        case 2: bits &= 0x800FFFFFFFFFFFFFull; break;                 /* subnormals */
        case 3: {                                                     /* short decimals */
            char t[40];
            snprintf(t, sizeof t, "%llue%d", (unsigned long long)(bits % 1000000), (int)(rng() % 60) - 30);
            double x = strtod(t, NULL);
            return (bits >> 40) & 1 ? -x : x;
        }
        case 4: return (double)(int64_t)(bits >> (rng() % 64));     /* integers of every size */
        case 5: {                                                     /* ratios like the solvers' */
            double x = (double)(bits % 100000 + 1) / (double)(rng() % 99999 + 1);
            return x * pow(10, (double)((int)(rng() % 30) - 15));
        }
        default: break;
        }
        double v;
        memcpy(&v, &bits, sizeof v);
        if (isfinite(v))
            return v;
    }
}

static double time_fmt(int (*f)(char *, size_t, double), const double *vals, size_t n, long iters)
{
    double runs[RUNS];
    char buf[64];
    for (int r = 0; r < RUNS; r++) {
        size_t acc = 0;
        double t0 = bench_now();
        for (long i = 0; i < iters; i++)
            acc += (size_t)f(buf, sizeof buf, vals[(size_t)i % n]);
        runs[r] = (bench_now() - t0) / (double)iters * 1e9;
        g_sink += acc;
    }
    return median(runs, RUNS);
}

static int verify(long n)
{
    char a[64], b[64];
    long bad = 0;
    /* Hand-picked edge cases first, then random ones. */
    static const double edges[] = {0.0, -0.0, 5e-324, -5e-324, 1e-323, 2.2250738585072009e-308,
                                   2.2250738585072014e-308, 1.7976931348623157e308, 1.0, 0.1, 0.5, 9007199254740993.0,
                                   9007199254740992.0, 1e15, 1e16, 1e17, 1e21, 1e22, 1e23, 123456789012345680.0,
                                   0x1p-97, 0x1p-140, 0x1p405, -0x1p89, 0x1p-1074, 0x1p-1022, 0x1p1023, 4.35, 0.3};
    /* Systematic cases: every binary exponent with the smallest, next and largest significand;
     * d x 10^k for d = 1..9 and every k, with one ulp either side. */
    enum { NSYS = 2047 * 3 + 9 * 640 * 3 };
    double *sys = malloc(sizeof *sys * NSYS);
    size_t ns = 0;
    for (uint64_t e = 0; e < 2047; e++) {
        uint64_t fr[3] = {0, 1, (1ull << 52) - 1};
        for (int j = 0; j < 3; j++) {
            uint64_t bits = e << 52 | fr[j];
            memcpy(&sys[ns++], &bits, sizeof bits);
        }
    }
    for (int k = -330; k < 310; k++)
        for (int d = 1; d <= 9; d++) {
            char t[32];
            snprintf(t, sizeof t, "%de%d", d, k);
            double x = strtod(t, NULL);
            uint64_t bits;
            memcpy(&bits, &x, sizeof bits);
            for (int j = -1; j <= 1; j++) {
                uint64_t b2 = bits + (uint64_t)(int64_t)j;
                memcpy(&sys[ns++], &b2, sizeof b2);
            }
        }
    long total = 0;
    for (long i = -(long)(sizeof edges / sizeof edges[0]) - (long)ns; i < n; i++) {
        double v;
        if (i < -(long)ns) {
            v = edges[-i - 1 - (long)ns];
        } else if (i < 0) {
            v = sys[-i - 1];
            if (!isfinite(v))
                continue;
        } else {
            v = random_double((int)(i % 6));
            if (i % 11 == 0) { /* a decimal midpoint of %.4g (d.ddd5 x 10^k), or its neighbour below */
                char t[40];
                snprintf(t, sizeof t, "%d.%03d5e%d", 1 + (int)(rng() % 9), (int)(rng() % 1000), (int)(rng() % 601) - 300);
                v = strtod(t, NULL);
            }
            if (i % 7 == 0) { /* neighbours: one ulp either side */
                uint64_t bits;
                memcpy(&bits, &v, sizeof bits);
                bits += (rng() & 1) ? 1 : (uint64_t)-1;
                memcpy(&v, &bits, sizeof v);
                if (!isfinite(v))
                    continue;
            }
        }
        total++;
        fmt_double(a, sizeof a, v);
        fmt_double_reference(b, sizeof b, v);
        if (strcmp(a, b)) {
            if (bad++ < 20)
                fprintf(stderr, "fmt_double(%a): %s, previous formatter: %s\n", v, a, b);
        }
        fmt_pyrepr(a, sizeof a, v);
        fmt_pyrepr_reference(b, sizeof b, v);
        if (strcmp(a, b)) {
            if (bad++ < 20)
                fprintf(stderr, "fmt_pyrepr(%a): %s, previous formatter: %s\n", v, a, b);
        }
        fmt_g4(a, sizeof a, v);
        snprintf(b, sizeof b, "%.4g", v);
        if (strcmp(a, b)) {
            if (bad++ < 20)
                fprintf(stderr, "fmt_g4(%a): %s, printf: %s\n", v, a, b);
        }
    }
    free(sys);
    printf("verify: %ld doubles, %ld mismatches\n", total, bad);
    return bad ? 1 : 0;
}

/* --- whole requests, in process -------------------------------------------------------------- */

static double time_app(app_request *req, long iters, int want_status)
{
    double runs[RUNS];
    for (int r = 0; r < RUNS; r++) {
        double t0 = bench_now();
        for (long i = 0; i < iters; i++) {
            app_response resp = {0};
            sb_init(&resp.body);
            app_handle(&g_app, req, &resp);
            if (resp.status != want_status)
                die(req->path, resp.body.data ? resp.body.data : "(no body)");
            g_sink += resp.body.len;
            app_response_free(&resp);
        }
        runs[r] = (bench_now() - t0) / (double)iters * 1e9;
    }
    return median(runs, RUNS);
}

static void add_query(app_request *req, const char *k, const char *v)
{
    req->query[req->n_query].key = k;
    req->query[req->n_query].value = v;
    req->n_query++;
}

static const char *sweep_body(const char *fmt, int effs)
{
    static char body[512];
    snprintf(body, sizeof body,
             "{\"solver\":\"single_node\",\"inputs\":{\"model\":\"ResNet50\",\"hardware\":\"A100\",\"precision\":"
             "\"fp16\"},\"axes\":[{\"input\":\"batch_size\",\"range\":{\"start\":1,\"stop\":%d,\"step\":1}},"
             "{\"input\":\"efficiency\",\"geomspace\":{\"start\":0.01,\"stop\":1,\"count\":%d}}],\"format\":\"%s\"}",
             SW_B, effs, fmt);
    return body;
}

/* Seconds for POST /sweep of body through app_handle and its stream, or its whole answer for a
 * sweep small enough to be written at once (solve + format, no HTTP). */
static double inproc_sweep_seconds(const char *body, double *bytes_out)
{
    app_request req = {.method = "POST", .path = "/sweep", .content_type = "application/json", .request_id = "bench"};
    req.body = body;
    req.body_len = strlen(req.body);
    app_response resp = {0};
    sb_init(&resp.body);
    double t0 = bench_now();
    app_handle(&g_app, &req, &resp);
    if (resp.status != 200)
        die("in-process sweep", resp.body.data ? resp.body.data : "no answer");
    static char buf[65536];
    size_t n, total = resp.body.len; /* a small sweep is answered whole, without a stream */
    while (resp.stream.ctx && (n = resp.stream.read(resp.stream.ctx, buf, sizeof buf)) > 0 && n != STREAM_FAILED)
        total += n;
    double t = bench_now() - t0;
    app_response_free(&resp);
    if (bytes_out)
        *bytes_out = (double)total;
    return t;
}

static double inproc_sweep(const char *fmt, int effs, double *bytes_out)
{
    return (double)SW_B * effs / inproc_sweep_seconds(sweep_body(fmt, effs), bytes_out);
}

int main(int argc, char **argv)
{
    long verify_n = -1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--quick"))
            g_quick = 1;
        else if (!strcmp(argv[i], "--cpu-time"))
            g_clock = CLOCK_PROCESS_CPUTIME_ID;
        else if (!strcmp(argv[i], "--only") && i + 1 < argc)
            g_only = argv[++i];
        else if (!strcmp(argv[i], "--verify") && i + 1 < argc)
            verify_n = atol(argv[++i]);
        else {
            fprintf(stderr, "usage: %s [--quick] [--cpu-time] [--only SUBSTRING] [--verify N]\n", argv[0]);
            return 2;
        }
    }
    if (verify_n >= 0)
        return verify(verify_n);

    setup();
    long k = g_quick ? 10 : 1;
    const solver_desc *sn = solver_at((size_t)solver_find("single_node")), *pl = solver_at((size_t)solver_find("pipeline"));
    solver_inputs *in_sn =
        parse_inputs(sn, "{\"model\":\"ResNet50\",\"hardware\":\"A100\",\"batch_size\":256,\"precision\":\"fp16\"}");
    solver_inputs *in_pl = parse_inputs(pl, "{\"model\":\"ResNet50\",\"hardware\":\"A100\",\"batch_size\":512,"
                                            "\"sample_size_bytes\":\"500 KB\",\"cpu_workers\":8}");
    if (want("solve_single_node_ns"))
        result("solve_single_node_ns", time_solve(sn, in_sn, 400000 / k, false), "ns");
    if (want("solve_pipeline_ns"))
        result("solve_pipeline_ns", time_solve(pl, in_pl, 200000 / k, false), "ns");
    for (size_t i = 0; i < sizeof SOLVES / sizeof SOLVES[0]; i++) {
        if (!want(SOLVES[i].key))
            continue;
        const solver_desc *s = solver_at((size_t)solver_find(SOLVES[i].solver));
        if (!s)
            die("no solver", SOLVES[i].solver);
        solver_inputs *in = parse_inputs(s, SOLVES[i].inputs);
        /* about 0.2 s per run at 1 us a solve */
        result(SOLVES[i].key, time_solve(s, in, (long)(200000 / SOLVES[i].per) / k, SOLVES[i].quiet) / SOLVES[i].per, "ns");
        free(in);
    }
    for (size_t i = 0; i < solver_count(); i++) {
        const solver_desc *s = solver_at(i);
        char key[96];
        snprintf(key, sizeof key, "example_%s_ns", s->name);
        if (!want(key))
            continue;
        if (!s->example_json)
            die("no example_json", s->name);
        solver_inputs *in = parse_inputs(s, s->example_json);
        double once = time_solve(s, in, 1, false);
        long iters = (long)(3e7 / (once > 1 ? once : 1)) / k;
        result(key, time_solve(s, in, iters > 0 ? iters : 1, false), "ns");
        free(in);
    }
    for (size_t i = 0; i < sizeof MODES / sizeof MODES[0]; i++) {
        for (int quiet = 0; quiet < 2; quiet++) {
            char key[96];
            snprintf(key, sizeof key, "mode_%s%s_", MODES[i].key, quiet ? "_quiet" : "");
            if (!want(key))
                continue;
            const solver_desc *s = solver_at((size_t)solver_find(MODES[i].solver));
            solver_inputs *in = parse_inputs(s, MODES[i].inputs);
            /* about 0.05 s per run */
            double sim, meas, once_s, once_m;
            time_modes(s, in, 2000 / k, quiet, &once_s, &once_m);
            long iters = (long)(5e7 / fmax(once_s, once_m)) / k;
            time_modes(s, in, iters > 0 ? iters : 1, quiet, &sim, &meas);
            char name[128];
            snprintf(name, sizeof name, "%smlsysim_ns", key);
            result(name, sim, "ns");
            snprintf(name, sizeof name, "%smeasured_ns", key);
            result(name, meas, "ns");
            snprintf(name, sizeof name, "%sratio", key);
            result(name, meas / sim, "x");
            free(in);
        }
    }
    bench_serving_simulation();
    if (want("inputs_check_ns"))
        result("inputs_check_ns", time_check(sn, in_sn, 400000 / k), "ns");

    /* Values the sweep prints: the numeric cells of 4096 rows spread over the benchmark sweep. */
    enum { NV = 4096 };
    double *vals = malloc(sizeof *vals * NV * SOLVER_MAX_OUTPUTS), *rnd = malloc(sizeof *rnd * NV);
    size_t nv = 0;
    {
        solver_outputs *out = calloc(1, sizeof *out);
        row *r = malloc(sizeof *r);
        for (long i = 0; i < NV && nv < NV; i++) {
            solve_rows(sn, in_sn, out, r, (i * 7919) % (SW_B * SW_E), 1);
            for (size_t o = 0; o < sn->n_outputs && nv < NV; o++)
                if (sn->outputs[o].kind == OUT_NUMBER && !r->v[o].is_null)
                    vals[nv++] = r->v[o].num;
        }
        free(r);
        free(out);
    }
    for (size_t i = 0; i < NV; i++)
        rnd[i] = random_double((int)i);
    if (want("fmt_double_ns"))
        result("fmt_double_ns", time_fmt(fmt_double, vals, nv, 2000000 / k), "ns");
    if (want("fmt_double_ref_ns"))
        result("fmt_double_ref_ns", time_fmt(fmt_double_reference, vals, nv, 100000 / k), "ns");
    if (want("fmt_double_random_ns"))
        result("fmt_double_random_ns", time_fmt(fmt_double, rnd, NV, 2000000 / k), "ns");
    if (want("fmt_double_random_ref_ns"))
        result("fmt_double_random_ref_ns", time_fmt(fmt_double_reference, rnd, NV, 100000 / k), "ns");
    if (want("fmt_pyrepr_ns"))
        result("fmt_pyrepr_ns", time_fmt(fmt_pyrepr, vals, nv, 2000000 / k), "ns");

    /* Whole requests through app_handle (no sockets). */
    {
        app_request h = {.method = "GET", .path = "/healthz", .request_id = "bench"};
        if (want("app_healthz_ns"))
            result("app_healthz_ns", time_app(&h, 1000000 / k, 200), "ns");
        app_request g = {.method = "GET", .path = "/solve/single_node", .request_id = "bench"};
        add_query(&g, "model", "ResNet50");
        add_query(&g, "hardware", "A100");
        add_query(&g, "batch_size", "256");
        add_query(&g, "precision", "fp16");
        if (want("app_solve_get_ns"))
            result("app_solve_get_ns", time_app(&g, 100000 / k, 200), "ns");
        app_request p = {.method = "POST", .path = "/solve", .content_type = "application/json", .request_id = "bench"};
        p.body = "{\"solver\":\"single_node\",\"inputs\":{\"model\":\"ResNet50\",\"hardware\":\"A100\",\"batch_size\":256,"
                 "\"precision\":\"fp16\"}}";
        p.body_len = strlen(p.body);
        if (want("app_solve_post_ns"))
            result("app_solve_post_ns", time_app(&p, 100000 / k, 200), "ns");
        /* The same request in measured mode, and serving's, as whole /solve requests: the
         * cost a client sees (issue 24's budget: measured at most 10 % more per solve). Both
         * bodies name their mode ("calibration":"mlsysim" / "measured"), so that the ratio is
         * the mode's cost, not that of reading one more member (a daemon started with
         * --calibration measured answers the body without it in measured mode). */
        static const struct {
            const char *key, *body;
        } REQ[] = {
            {"single_node", "{\"solver\":\"single_node\",%s\"inputs\":{\"model\":\"ResNet50\",\"hardware\":"
                            "\"A100\",\"batch_size\":256,\"precision\":\"fp16\"}}"},
            {"serving", "{\"solver\":\"serving\",%s\"inputs\":{\"model\":\"Llama3_70B\",\"hardware\":\"H100\","
                        "\"seq_len\":2048,\"precision\":\"fp8\",\"tp\":2}}"},
            {"distributed", "{\"solver\":\"distributed\",%s\"inputs\":{\"model\":\"Llama3_70B\",\"fleet\":{\"node\":"
                            "\"DGX_H100\",\"count\":32,\"fabric\":\"InfiniBand_NDR\"},\"tp_size\":8,\"pp_size\":4,"
                            "\"batch_size\":512,\"seq_len\":4096,\"step_model\":\"sharded\"}}"},
        };
        for (size_t i = 0; i < sizeof REQ / sizeof REQ[0]; i++) {
            char key[96];
            snprintf(key, sizeof key, "app_mode_%s_ratio", REQ[i].key);
            if (!want(key))
                continue;
            char b_sim[512], b_meas[512];
            snprintf(b_sim, sizeof b_sim, REQ[i].body, "\"calibration\":\"mlsysim\",");
            snprintf(b_meas, sizeof b_meas, REQ[i].body, "\"calibration\":\"measured\",");
            app_request rs = p, rm = p;
            rs.body = b_sim;
            rs.body_len = strlen(b_sim);
            rm.body = b_meas;
            rm.body_len = strlen(b_meas);
            double ts[RUNS], tm[RUNS];
            for (int r = 0; r < RUNS; r++) { /* alternate, so both see the same load; medians */
                ts[r] = time_app(&rs, 5000 / k, 200);
                tm[r] = time_app(&rm, 5000 / k, 200);
            }
            double ms = median(ts, RUNS), mm = median(tm, RUNS);
            snprintf(key, sizeof key, "app_mode_%s_mlsysim_ns", REQ[i].key);
            result(key, ms, "ns");
            snprintf(key, sizeof key, "app_mode_%s_measured_ns", REQ[i].key);
            result(key, mm, "ns");
            snprintf(key, sizeof key, "app_mode_%s_ratio", REQ[i].key);
            result(key, mm / ms, "x");
        }
    }

    /* A serving sweep as CSV in both modes (the modes alternating, medians): what a point of
     * a sweep costs a client, solve and row together. */
    if (want("app_mode_sweep_serving_ratio")) {
        static const char SWEEP[] = "{\"solver\":\"serving\",%s\"inputs\":{\"model\":\"Llama3_70B\",\"hardware\":"
                                    "\"H100\",\"precision\":\"fp8\",\"tp\":2},\"axes\":[{\"input\":\"batch_size\","
                                    "\"range\":{\"start\":1,\"stop\":%d,\"step\":1}},{\"input\":\"seq_len\","
                                    "\"values\":[512,1024,2048,4096]}],\"format\":\"csv\"}";
        int batches = g_quick ? 64 : 2048;
        char b_sim[512], b_meas[512];
        snprintf(b_sim, sizeof b_sim, SWEEP, "", batches);
        snprintf(b_meas, sizeof b_meas, SWEEP, "\"calibration\":\"measured\",", batches);
        double ts[RUNS], tm[RUNS];
        for (int r = 0; r < RUNS; r++) {
            ts[r] = inproc_sweep_seconds(b_sim, NULL);
            tm[r] = inproc_sweep_seconds(b_meas, NULL);
        }
        double pts_sw = 4.0 * batches, ms = median(ts, RUNS) / pts_sw * 1e9, mm = median(tm, RUNS) / pts_sw * 1e9;
        result("app_mode_sweep_serving_mlsysim_ns", ms, "ns");
        result("app_mode_sweep_serving_measured_ns", mm, "ns");
        result("app_mode_sweep_serving_ratio", mm / ms, "x");
    }

    /* The formatting bound and the in-process sweep, on the 1M-point benchmark sweep. */
    long pts = (long)SW_B * SW_E / k;
    double bpr;
    if (want("fmtbound_csv_pps")) {
        result("fmtbound_csv_pps", format_bound(sn, in_sn, pts, ROWS_CSV, &bpr), "points/s");
        result("fmtbound_csv_bytes_per_row", bpr, "B");
    }
    if (want("fmtbound_json_pps"))
        result("fmtbound_json_pps", format_bound(sn, in_sn, pts, ROWS_JSON, &bpr), "points/s");
    if (want("fmtbound_ndjson_pps"))
        result("fmtbound_ndjson_pps", format_bound(sn, in_sn, pts, ROWS_NDJSON, &bpr), "points/s");
    int effs = g_quick ? 100 : SW_E;
    double bytes;
    if (want("inproc_sweep_csv_pps"))
        result("inproc_sweep_csv_pps", inproc_sweep("csv", effs, &bytes), "points/s");
    if (want("inproc_sweep_json_pps"))
        result("inproc_sweep_json_pps", inproc_sweep("json", effs, &bytes), "points/s");
    if (want("inproc_sweep_ndjson_pps"))
        result("inproc_sweep_ndjson_pps", inproc_sweep("ndjson", effs, &bytes), "points/s");

    free(vals);
    free(rnd);
    free(in_sn);
    free(in_pl);
    app_free(&g_app);
    catalog_free(g_cat);
    return g_sink == 42 ? 1 : 0;
}
