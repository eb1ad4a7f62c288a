/* serving_simulation.c - serving_simulation: requests through a
 * continuous-batching LLM server with an iteration-level scheduler, in the
 * manner of vLLM or SGLang (Yu et al. 2022, ORCA; Kwon et al. 2023,
 * PagedAttention; Agrawal et al. 2024, Sarathi-Serve), simulated request by
 * request and iteration by iteration, as Vidur and LLMServingSim do offline.
 *
 * Requests are the client's trace (rows {arrival_s, prompt_tokens,
 * output_tokens}, sorted by arrival), or a seeded draw (core/request_draw.h):
 * Poisson or gamma arrivals, lengths fixed or drawn (uniform, exponential,
 * lognormal), the same seed at another arrival rate drawing the same lengths
 * and scaled arrival times. A router sends each to one of
 * `replicas` servers of tp accelerators (round robin or least outstanding).
 * Each server runs iterations: the running sequences' decode steps and
 * prefill chunks, then new requests admitted FCFS within max_num_seqs,
 * max_num_batched_tokens and the free KV pages; a sequence that needs a page
 * when none is free preempts the most recently admitted one, which frees its
 * pages and later recomputes its prompt and the tokens it had generated.
 * Without chunked prefill an iteration is either whole prompts or decodes
 * (vLLM's original scheduler). An iteration's time comes from its mix of
 * prefill tokens and decode sequences through serving_iteration_time()
 * (core/measured.h): serving's arithmetic in mlsysim mode, measured mode's
 * fitted terms in measured mode.
 *
 * Work is bounded and sized up front: the request count and the tokens they
 * generate are capped (413 beyond), the arrays are allocated once per run and
 * no event allocates. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/llm.h"
#include "core/measured.h"
#include "core/request_draw.h"
#include "core/solver.h"

#define MAX_REQUESTS 20000
#define MAX_GENERATED_TOKENS 2e7 /* num_requests x output_tokens */
#define MAX_REPLICAS 64
#define MAX_NUM_SEQS 4096

enum {
    I_MODEL, I_HARDWARE, I_PRECISION, I_EFFICIENCY, I_TP, I_REPLICAS, I_ROUTING, I_RATE, I_ARRIVAL, I_ARRIVAL_CV,
    I_PROMPT, I_PROMPT_DIST, I_OUTPUT, I_OUTPUT_DIST, I_LENGTH_CV, I_NUM_REQUESTS, I_WARMUP, I_SEED, I_MAX_SEQS,
    I_MAX_TOKENS, I_CHUNKED, I_CHUNK, I_PAGE, I_MEM_UTIL, I_SLO_TTFT, I_SLO_TPOT, I_TRACE, I_N
};

static const char *const ROUTING[] = {"round_robin", "least_outstanding", NULL};
enum { ROUTE_RR, ROUTE_LEAST };
static const char *const ARRIVALS[] = {"poisson", "gamma", NULL};
enum { ARR_POISSON, ARR_GAMMA };

/* A row of request_trace. */
enum { F_ARRIVAL, F_PROMPT, F_OUTPUT, F_N };
static const input_desc TRACE_FIELDS[F_N] = {
    [F_ARRIVAL] = {.name = "arrival_s", .kind = IN_NUMBER, .check = CHECK_RANGE, .lo = 0, .hi = 1e9,
                   .lo_is_int = true, .hi_is_int = true,
                   .description = "When the request arrives, in seconds (rows in order: never before the row above)"},
    [F_PROMPT] = {.name = "prompt_tokens", .kind = IN_INTEGER, .check = CHECK_RANGE, .lo = 1, .hi = 131072,
                  .lo_is_int = true, .hi_is_int = true, .description = "Its prompt length, tokens"},
    [F_OUTPUT] = {.name = "output_tokens", .kind = IN_INTEGER, .check = CHECK_RANGE, .lo = 1, .hi = 16384,
                  .lo_is_int = true, .hi_is_int = true, .description = "Its output length, tokens"},
};

static const input_desc INPUTS[I_N] = {
    [I_MODEL] = LLM_INPUT_MODEL("The served LLM (a TransformerWorkload): Llama3_70B, Llama3_8B, ..."),
    [I_HARDWARE] = LLM_INPUT_HARDWARE("The accelerator of every replica"),
    [I_PRECISION] = LLM_INPUT_PRECISION,
    [I_EFFICIENCY] = {.name = "efficiency", .kind = IN_NUMBER, .has_default = true, .def_num = 0.5,
                      .check = CHECK_RANGE, .lo = 0.01, .hi = 1, .hi_is_int = true,
                      .description = "Fraction of peak compute prefill achieves (measured mode: the fitted value "
                                     "unless given)"},
    [I_TP] = IN_DEGREE("tp", "Tensor-parallel degree of a replica: weights and KV cache split over tp accelerators, "
                             "two all-reduces per layer per iteration"),
    [I_REPLICAS] = {.name = "replicas", .kind = IN_INTEGER, .has_default = true, .def_num = 1,
                    .check = CHECK_RANGE, .lo = 1, .hi = MAX_REPLICAS, .lo_is_int = true, .hi_is_int = true,
                    .description = "Independent servers of tp accelerators behind the router (at most 64)"},
    [I_ROUTING] = {.name = "routing", .kind = IN_ENUM, .has_default = true, .def_str = "round_robin",
                   .enum_values = ROUTING,
                   .description = "How the router picks a replica: round_robin, or least_outstanding (fewest "
                                  "requests waiting or running; ties to the lowest index)"},
    [I_RATE] = {.name = "arrival_rate_qps", .kind = IN_NUMBER, .check = CHECK_POSITIVE, .optional = true,
                .replaced_by = "request_trace",
                .description = "Mean arrival rate of requests, per second (required unless request_trace is given)"},
    [I_ARRIVAL] = {.name = "arrival_process", .kind = IN_ENUM, .has_default = true, .def_str = "poisson",
                   .enum_values = ARRIVALS,
                   .replaced_by = "request_trace",
                   .description = "poisson (exponential gaps), or gamma gaps with coefficient of variation "
                                  "arrival_cv (0: evenly spaced, above 1: bursty)"},
    [I_ARRIVAL_CV] = {.name = "arrival_cv", .kind = IN_NUMBER, .has_default = true, .def_num = 1,
                      .check = CHECK_RANGE, .lo = 0, .hi = 10, .lo_is_int = true, .hi_is_int = true,
                      .replaced_by = "request_trace",
                      .description = "Coefficient of variation of the gaps between arrivals (gamma only)"},
    [I_PROMPT] = {.name = "prompt_tokens", .kind = IN_INTEGER, .check = CHECK_RANGE, .lo = 1, .hi = 131072,
                  .lo_is_int = true, .hi_is_int = true, .optional = true,
                  .replaced_by = "request_trace",
                  .description = "Prompt length in tokens: fixed, or the mean of prompt_distribution (required "
                                 "unless request_trace is given)"},
    [I_PROMPT_DIST] = {.name = "prompt_distribution", .kind = IN_ENUM, .has_default = true, .def_str = "fixed",
                       .enum_values = REQUEST_LENGTH_DISTS,
                       .replaced_by = "request_trace",
                       .description = "fixed; uniform or lognormal with length_cv; exponential (cv 1). Draws are "
                                      "rounded, at least 1 and at most 16 x the mean"},
    [I_OUTPUT] = {.name = "output_tokens", .kind = IN_INTEGER, .check = CHECK_RANGE, .lo = 1, .hi = 16384,
                  .lo_is_int = true, .hi_is_int = true, .optional = true,
                  .replaced_by = "request_trace",
                  .description = "Output length in tokens: fixed, or the mean of output_distribution (required "
                                 "unless request_trace is given)"},
    [I_OUTPUT_DIST] = {.name = "output_distribution", .kind = IN_ENUM, .has_default = true, .def_str = "fixed",
                       .enum_values = REQUEST_LENGTH_DISTS,
                       .replaced_by = "request_trace",
                       .description = "As prompt_distribution, for output lengths"},
    [I_LENGTH_CV] = {.name = "length_cv", .kind = IN_NUMBER, .has_default = true, .def_num = 0.5,
                     .check = CHECK_RANGE, .lo = 0, .hi = 0.57, .lo_is_int = true,
                     .replaced_by = "request_trace",
                     .description = "Coefficient of variation of uniform and lognormal lengths (uniform: at most "
                                    "0.57, a range from about 0 to twice the mean)"},
    [I_NUM_REQUESTS] = {.name = "num_requests", .kind = IN_INTEGER, .has_default = true, .def_num = 1000,
                        .check = CHECK_AT_LEAST, .lo = 1, .lo_is_int = true,
                        .replaced_by = "request_trace",
                        .description = "Requests simulated, warm-up included (at most 20000, and num_requests x "
                                       "output_tokens at most 2e7: 413 beyond)"},
    [I_WARMUP] = {.name = "warmup_requests", .kind = IN_INTEGER, .nullable = true, .int_max = 1e9,
                  .description = "The first requests, left out of every statistic (null: num_requests / 10)"},
    [I_SEED] = {.name = "seed", .kind = IN_INTEGER, .has_default = true, .def_num = 1, .check = CHECK_NONNEGATIVE,
                .replaced_by = "request_trace",
                .description = "Seed of the PRNG: the same seed gives the same answer"},
    [I_MAX_SEQS] = {.name = "max_num_seqs", .kind = IN_INTEGER, .has_default = true, .def_num = 256,
                    .check = CHECK_RANGE, .lo = 1, .hi = MAX_NUM_SEQS, .lo_is_int = true, .hi_is_int = true,
                    .description = "Scheduler's cap on sequences running at once, per replica (vLLM's default 256)"},
    [I_MAX_TOKENS] = {.name = "max_num_batched_tokens", .kind = IN_INTEGER, .has_default = true, .def_num = 8192,
                      .check = CHECK_AT_LEAST, .lo = 1, .lo_is_int = true, .int_max = 1e7,
                      .description = "Scheduler's token budget per iteration: decode steps count 1, prefill "
                                     "chunks their tokens (below max_num_seqs, some decodes wait their turn)"},
    [I_CHUNKED] = {.name = "chunked_prefill", .kind = IN_BOOLEAN, .has_default = true, .def_num = 1,
                   .description = "Prefill in chunks beside the decodes (Sarathi-Serve, vLLM V1); false: an "
                                  "iteration runs whole prompts or decodes, never both"},
    [I_CHUNK] = {.name = "prefill_chunk_tokens", .kind = IN_INTEGER, .nullable = true, .int_max = 1e7,
                 .description = "Chunked prefill: most prompt tokens of one sequence per iteration (null: the "
                                "token budget)"},
    [I_PAGE] = {.name = "page_size", .kind = IN_INTEGER, .has_default = true, .def_num = 16,
                .check = CHECK_RANGE, .lo = 1, .hi = 1024, .lo_is_int = true, .hi_is_int = true,
                .description = "KV-cache block size in tokens (PagedAttention)"},
    [I_MEM_UTIL] = {.name = "gpu_memory_utilization", .kind = IN_NUMBER, .has_default = true, .def_num = 0.9,
                    .check = CHECK_RANGE, .lo = 0.01, .hi = 1, .hi_is_int = true,
                    .description = "Share of accelerator memory the server may use; the KV pages are what "
                                   "remains after the weights (vLLM's default 0.9)"},
    [I_SLO_TTFT] = {.name = "slo_ttft_ms", .kind = IN_NUMBER, .nullable = true,
                    .description = "SLO on time to first token, ms (null: none); goodput counts requests meeting "
                                   "every SLO given"},
    [I_SLO_TPOT] = {.name = "slo_tpot_ms", .kind = IN_NUMBER, .nullable = true,
                    .description = "SLO on time per output token, ms (null: none)"},
    [I_TRACE] = {.name = "request_trace", .kind = IN_ROWS, .optional = true, .row_fields = TRACE_FIELDS,
                 .n_row_fields = F_N, .max_rows = MAX_REQUESTS,
                 .description = "The requests themselves instead of a draw: rows {arrival_s, prompt_tokens, "
                                "output_tokens} sorted by arrival_s (an unsorted trace is refused, naming the first "
                                "row out of order), at most 20000 rows and 2e7 output tokens (413 beyond). Given, "
                                "it replaces arrival_rate_qps, arrival_process, arrival_cv, prompt_tokens, "
                                "prompt_distribution, output_tokens, output_distribution, length_cv, num_requests "
                                "and seed, which must then be absent (and are not echoed)"},
};

/* Requests simulated: the trace's rows, or num_requests. */
static int request_count(const solver_inputs *in)
{
    return in_has(in, I_TRACE) ? in_rows_len(in, I_TRACE) : in_int(in, I_NUM_REQUESTS);
}

static int check_warmup(const solver_inputs *in, solver_error *err)
{
    if (in_has(in, I_WARMUP) && in_num(in, I_WARMUP) < 0)
        return solver_fail(err, "warmup_requests", "warmup_requests (%.0f) must be >= 0", in_num(in, I_WARMUP));
    if (in_has(in, I_WARMUP) && in_num(in, I_WARMUP) >= request_count(in))
        return solver_fail(err, "warmup_requests", "warmup_requests (%.0f) must be < %s (%d)", in_num(in, I_WARMUP),
                           in_has(in, I_TRACE) ? "the rows of request_trace" : "num_requests", request_count(in));
    return 0;
}

/* The inputs a draw cannot do without. */
static const int DRAW_REQUIRED[] = {I_RATE, I_PROMPT, I_OUTPUT};

static int check_source(const solver_inputs *in, solver_error *err)
{
    if (!in_has(in, I_TRACE)) {
        for (size_t k = 0; k < sizeof DRAW_REQUIRED / sizeof DRAW_REQUIRED[0]; k++)
            if (!in_has(in, DRAW_REQUIRED[k]))
                return solver_fail(err, INPUTS[DRAW_REQUIRED[k]].name,
                                   "missing required input '%s' (give arrival_rate_qps, prompt_tokens and "
                                   "output_tokens, or request_trace)",
                                   INPUTS[DRAW_REQUIRED[k]].name);
        return 0;
    }
    /* The inputs of the draw (replaced_by request_trace): absent unless given. */
    for (int k = 0; k < I_N; k++)
        if (INPUTS[k].replaced_by && in->v[k].present && !in->v[k].defaulted)
            return solver_fail(err, INPUTS[k].name,
                               "%s describes a draw of requests, and request_trace gives the requests: give one or "
                               "the other",
                               INPUTS[k].name);
    const int n = in_rows_len(in, I_TRACE);
    if (n == 0)
        return solver_fail(err, "request_trace", "request_trace must have at least one row");
    for (int j = 1; j < n; j++) {
        double a = in_row(in, I_TRACE, j, F_N)[F_ARRIVAL], prev = in_row(in, I_TRACE, j - 1, F_N)[F_ARRIVAL];
        if (a < prev) {
            char field[64];
            snprintf(field, sizeof field, "request_trace[%d].arrival_s", j);
            return solver_fail(err, field,
                               "request_trace must be sorted by arrival_s: row %d arrives at %.17g s, before row %d "
                               "at %.17g s",
                               j, a, j - 1, prev);
        }
    }
    return 0;
}

static int check_chunk(const solver_inputs *in, solver_error *err)
{
    if (in_has(in, I_CHUNK) && in_num(in, I_CHUNK) < 1)
        return solver_fail(err, "prefill_chunk_tokens", "prefill_chunk_tokens (%.0f) must be >= 1 (when given)",
                           in_num(in, I_CHUNK));
    return 0;
}

static int check_slo(const solver_inputs *in, int i, const char *name, solver_error *err)
{
    if (in_has(in, i) && !(in_num(in, i) > 0))
        return solver_fail(err, name, "%s must be positive (when given), got %g", name, in_num(in, i));
    return 0;
}

static int check_slo_ttft(const solver_inputs *in, solver_error *err) { return check_slo(in, I_SLO_TTFT, "slo_ttft_ms", err); }
static int check_slo_tpot(const solver_inputs *in, solver_error *err) { return check_slo(in, I_SLO_TPOT, "slo_tpot_ms", err); }

static const char *const R_CHUNK[] = {"prefill_chunk_tokens", NULL};
static const char *const R_SLO_TTFT[] = {"slo_ttft_ms", NULL};
static const char *const R_SLO_TPOT[] = {"slo_tpot_ms", NULL};
static const char *const R_WARMUP[] = {"warmup_requests", "num_requests", "request_trace", NULL};
static const char *const R_SOURCE[] = {"request_trace",       "arrival_rate_qps",   "arrival_process", "arrival_cv",
                                       "prompt_tokens",       "prompt_distribution", "output_tokens",
                                       "output_distribution", "length_cv",           "num_requests",    "seed",
                                       NULL};

static const input_constraint CONSTRAINTS[] = {
    {.rule = "request_trace (sorted by arrival_s), or arrival_rate_qps, prompt_tokens and output_tokens with the "
             "draw's other inputs: not both",
     .inputs = R_SOURCE, .check = check_source},
    {.rule = "0 <= warmup_requests < num_requests, or the rows of request_trace (when given)", .inputs = R_WARMUP,
     .check = check_warmup},
    {.rule = "prefill_chunk_tokens >= 1 (when given)", .inputs = R_CHUNK, .check = check_chunk},
    {.rule = "slo_ttft_ms > 0 (when given)", .inputs = R_SLO_TTFT, .check = check_slo_ttft},
    {.rule = "slo_tpot_ms > 0 (when given)", .inputs = R_SLO_TPOT, .check = check_slo_tpot},
};

enum {
    O_FEASIBLE, O_TTFT_MEAN, O_TTFT_P50, O_TTFT_P90, O_TTFT_P99, O_TPOT_MEAN, O_TPOT_P50, O_TPOT_P90, O_TPOT_P99,
    O_E2E_MEAN, O_E2E_P99, O_THROUGHPUT, O_TOKENS_S, O_IN_SYSTEM, O_GOODPUT, O_SLO_ATTAIN, O_KV_UTIL, O_PREEMPT,
    O_MAX_QUEUE, O_KV_TOKENS, O_MEAN_BATCH, O_ITERATIONS, O_MEASURED, O_WARMUP, O_WINDOW, O_N
};

#define LAT(nm, what) {.name = nm, .kind = OUT_NUMBER, .unit = "ms", .description = what, .nullable = true}

static const output_desc OUTPUTS[O_N] = {
    [O_FEASIBLE] = {.name = "feasible", .kind = OUT_BOOLEAN, .unit = "", .categorical = true,
                    .description = "The weights fit a replica's memory and a request of the mean lengths fits the "
                                   "KV pages left (else every other output is null)"},
    [O_TTFT_MEAN] = LAT("ttft_mean", "Mean time to first token: arrival to the end of the iteration that emits it"),
    [O_TTFT_P50] = LAT("ttft_p50", "Median time to first token"),
    [O_TTFT_P90] = LAT("ttft_p90", "90th-percentile time to first token"),
    [O_TTFT_P99] = LAT("ttft_p99", "99th-percentile time to first token"),
    [O_TPOT_MEAN] = LAT("tpot_mean", "Mean time per output token after the first: (finish - first token) / "
                                     "(output tokens - 1), over requests of 2 tokens or more"),
    [O_TPOT_P50] = LAT("tpot_p50", "Median time per output token"),
    [O_TPOT_P90] = LAT("tpot_p90", "90th-percentile time per output token"),
    [O_TPOT_P99] = LAT("tpot_p99", "99th-percentile time per output token"),
    [O_E2E_MEAN] = LAT("e2e_mean", "Mean end-to-end latency: arrival to the last token"),
    [O_E2E_P99] = LAT("e2e_p99", "99th-percentile end-to-end latency"),
    [O_THROUGHPUT] = {.name = "throughput_rps", .kind = OUT_NUMBER, .unit = "1/s", .nullable = true,
                      .description = "Requests completed per second over the measurement window (first measured "
                                     "arrival to last arrival)"},
    [O_TOKENS_S] = {.name = "output_tokens_per_s", .kind = OUT_NUMBER, .unit = "tokens/s", .nullable = true,
                    .description = "Output tokens emitted per second over the measurement window"},
    [O_IN_SYSTEM] = {.name = "mean_requests_in_system", .kind = OUT_NUMBER, .unit = "", .nullable = true,
                     .description = "Time-average of requests waiting or running over the window (Little's law: "
                                    "about throughput_rps x e2e_mean when the load is stable)"},
    [O_GOODPUT] = {.name = "goodput_rps", .kind = OUT_NUMBER, .unit = "1/s", .nullable = true,
                   .description = "throughput_rps x the share of measured requests meeting every SLO given (null "
                                  "without SLOs)"},
    [O_SLO_ATTAIN] = {.name = "slo_attainment", .kind = OUT_NUMBER, .unit = "", .nullable = true,
                      .description = "Share of measured requests meeting every SLO given (null without SLOs)"},
    [O_KV_UTIL] = {.name = "kv_utilization_mean", .kind = OUT_NUMBER, .unit = "", .nullable = true,
                   .description = "Time-average share of the KV pages held, over replicas and the window"},
    [O_PREEMPT] = {.name = "preemptions", .kind = OUT_INTEGER, .unit = "", .nullable = true,
                   .description = "Sequences preempted (pages freed, recomputed later) in the whole run"},
    [O_MAX_QUEUE] = {.name = "max_queue_length", .kind = OUT_INTEGER, .unit = "", .nullable = true,
                     .description = "Most requests waiting (not running) at once, over all replicas, whole run"},
    [O_KV_TOKENS] = {.name = "kv_capacity_tokens", .kind = OUT_INTEGER, .unit = "",
                     .description = "KV pages of one replica x page_size: the tokens its cache holds"},
    [O_MEAN_BATCH] = {.name = "mean_batch_size", .kind = OUT_NUMBER, .unit = "", .nullable = true,
                      .description = "Sequences per iteration (decoding or prefilling), averaged over iterations"},
    [O_ITERATIONS] = {.name = "iterations", .kind = OUT_INTEGER, .unit = "", .nullable = true,
                      .description = "Iterations simulated, all replicas, whole run"},
    [O_MEASURED] = {.name = "measured_requests", .kind = OUT_INTEGER, .unit = "", .nullable = true,
                    .description = "Requests the statistics cover: num_requests - warmup_requests"},
    [O_WARMUP] = {.name = "warmup_requests", .kind = OUT_INTEGER, .unit = "", .nullable = true,
                  .description = "Requests left out as warm-up"},
    [O_WINDOW] = {.name = "measurement_window", .kind = OUT_NUMBER, .unit = "s", .nullable = true,
                  .description = "Length of the window the rates and time-averages are taken over"},
};

enum { C_PCT, C_TTFT, C_TPOT, C_E2E, C_N };
static const output_desc COLUMNS[C_N] = {
    [C_PCT] = {.name = "percentile", .kind = OUT_NUMBER, .unit = "", .description = "Percentile (100: the maximum)"},
    [C_TTFT] = {.name = "ttft", .kind = OUT_NUMBER, .unit = "ms", .description = "Time to first token"},
    [C_TPOT] = {.name = "tpot", .kind = OUT_NUMBER, .unit = "ms", .description = "Time per output token",
                .nullable = true},
    [C_E2E] = {.name = "e2e", .kind = OUT_NUMBER, .unit = "ms", .description = "End-to-end latency"},
};

static const table_desc TABLE = {
    .name = "latency_percentiles",
    .description = "Latency percentiles of the measured requests (linear interpolation), 50 to 100 (the maximum)",
    .columns = COLUMNS,
    .n_columns = C_N,
};

/* --- the simulation ------------------------------------------------------------------ */

enum { ST_FUTURE, ST_WAITING, ST_RUNNING, ST_DONE };

/* One request: 64 bytes, and the array is allocated on 64-byte boundaries, so
 * that the walks over the running sequences read one cache line each. */
typedef struct {
    double arrival, first, finish;
    int prompt, output;
    int computed;  /* tokens whose KV is cached */
    int target;    /* tokens to prefill before the next token (prompt, + generated after a preemption) */
    int generated; /* tokens emitted */
    int pages;     /* KV pages held */
    int replica;
    int next, prev; /* the replica's waiting list */
    unsigned char state;
} sim_req;
#define SIM_REQ_ALIGN 64
_Static_assert(sizeof(sim_req) == SIM_REQ_ALIGN, "a request fills one cache line");

typedef struct {
    int head, tail, count;
} sim_list;

typedef struct {
    sim_list waiting;
    int *run, n_run; /* the running sequences, in admission order */
    int free_pages;
    bool busy;
    double t_start, t_end;
    int n_sched;
    int *sched_req, *sched_tok; /* this iteration's sequences and their new tokens */
    int *prefilling;            /* the decode walk's note of the running sequences still prefilling */
    int group;                  /* > 0: this "iteration" is `group` decode-only iterations run in one go */
    int *residue;               /* page_size counters for the run of decode-only iterations */
} sim_replica;

typedef struct {
    const serving_iter_cost *cost;
    sim_req *req;
    sim_replica *rep;
    int n_rep;
    int *heap; /* busy replicas by (t_end, index) */
    int heap_n;
    int max_seqs, budget, chunk, page, total_pages;
    bool chunked;
    /* statistics */
    double win_a, win_b;   /* measurement window */
    double kv_page_time;   /* integral of pages held over the window, all replicas */
    double tokens_in_window;
    long long preemptions, iterations, batch_sum;
    int waiting_total, max_waiting;
    long long iter_cap;
    double next_arrival;   /* of the next request still to arrive (INFINITY: none) */
} sim_t;

static void list_push_back(sim_t *s, sim_list *l, int i)
{
    s->req[i].next = -1;
    s->req[i].prev = l->tail;
    if (l->tail >= 0)
        s->req[l->tail].next = i;
    else
        l->head = i;
    l->tail = i;
    l->count++;
}

static void list_push_front(sim_t *s, sim_list *l, int i)
{
    s->req[i].prev = -1;
    s->req[i].next = l->head;
    if (l->head >= 0)
        s->req[l->head].prev = i;
    else
        l->tail = i;
    l->head = i;
    l->count++;
}

static void list_remove(sim_t *s, sim_list *l, int i)
{
    sim_req *r = &s->req[i];
    if (r->prev >= 0)
        s->req[r->prev].next = r->next;
    else
        l->head = r->next;
    if (r->next >= 0)
        s->req[r->next].prev = r->prev;
    else
        l->tail = r->prev;
    r->next = r->prev = -1;
    l->count--;
}

static bool heap_less(const sim_t *s, int a, int b)
{
    double ta = s->rep[a].t_end, tb = s->rep[b].t_end;
    return ta < tb || (ta == tb && a < b);
}

static void heap_push(sim_t *s, int r)
{
    int i = s->heap_n++;
    s->heap[i] = r;
    while (i > 0) {
        int p = (i - 1) / 2;
        if (!heap_less(s, s->heap[i], s->heap[p]))
            break;
        int t = s->heap[i];
        s->heap[i] = s->heap[p];
        s->heap[p] = t;
        i = p;
    }
}

static int heap_pop(sim_t *s)
{
    int top = s->heap[0];
    s->heap[0] = s->heap[--s->heap_n];
    int i = 0;
    for (;;) {
        int l = 2 * i + 1, r = l + 1, m = i;
        if (l < s->heap_n && heap_less(s, s->heap[l], s->heap[m]))
            m = l;
        if (r < s->heap_n && heap_less(s, s->heap[r], s->heap[m]))
            m = r;
        if (m == i)
            break;
        int t = s->heap[i];
        s->heap[i] = s->heap[m];
        s->heap[m] = t;
        i = m;
    }
    return top;
}

static inline int pages_for(const sim_t *s, int tokens) { return (tokens + s->page - 1) / s->page; }

/* pages_for(tokens) - held, without a division when tokens lie in the last
 * page held or the one after (a decode step, most prefill chunks). */
static inline int pages_needed(const sim_t *s, int tokens, int held)
{
    const int cap = held * s->page;
    if (tokens <= cap && tokens > cap - s->page)
        return 0;
    if (tokens > cap && tokens <= cap + s->page)
        return 1;
    return pages_for(s, tokens) - held;
}

/* *page_time plus the pages held over [t0, t1] inside the measurement window
 * [win_a, win_b] (times are never NaN: plain comparisons stand for fmax and
 * fmin). */
static inline void add_page_time(double *page_time, int held, double t0, double t1, double win_a, double win_b)
{
    double a = t0 > win_a ? t0 : win_a, b = t1 < win_b ? t1 : win_b;
    if (b > a)
        *page_time += (double)held * (b - a);
}

static void enqueue_waiting(sim_t *s, sim_replica *rp, int i, bool front)
{
    s->req[i].state = ST_WAITING;
    if (front)
        list_push_front(s, &rp->waiting, i);
    else
        list_push_back(s, &rp->waiting, i);
    if (++s->waiting_total > s->max_waiting)
        s->max_waiting = s->waiting_total;
}

/* Preempt the most recently admitted running sequence: free its pages; it
 * recomputes everything it holds, and waits at the head of the queue. */
static int preempt_last(sim_t *s, sim_replica *rp)
{
    int v = rp->run[--rp->n_run];
    sim_req *r = &s->req[v];
    rp->free_pages += r->pages;
    r->pages = 0;
    r->computed = 0;
    r->target = r->prompt + r->generated;
    enqueue_waiting(s, rp, v, true);
    s->preemptions++;
    return v;
}

static void schedule(sim_replica *rp, int i, int n)
{
    rp->sched_req[rp->n_sched] = i;
    rp->sched_tok[rp->n_sched] = n;
    rp->n_sched++;
}

/* A prefill chunk of n tokens of r into the iteration's mix (decode steps are
 * counted by the decode walk). */
static void add_prefill(const sim_req *r, int n, serving_iteration *it)
{
    double c = r->computed;
    it->prefill_tokens += n;
    it->prefill_attn_full += n * (c + n);
    it->prefill_attn_causal += n * (c + 0.5 * n);
}

static bool is_decoding(const sim_req *r) { return r->generated > 0 && r->computed >= r->target; }

/* Admit the waiting head with n tokens of prefill, if its pages are free. */
static bool admit(sim_t *s, sim_replica *rp, int n, serving_iteration *it)
{
    int w = rp->waiting.head;
    sim_req *r = &s->req[w];
    int need = pages_needed(s, r->computed + n, r->pages);
    if (need > rp->free_pages)
        return false;
    list_remove(s, &rp->waiting, w);
    s->waiting_total--;
    rp->run[rp->n_run++] = w;
    r->state = ST_RUNNING;
    rp->free_pages -= need;
    r->pages += need;
    add_prefill(r, n, it);
    schedule(rp, w, n);
    return true;
}

/* Fast path, exact: the iteration just scheduled decodes every running
 * sequence, nothing waits, and no request arrives before it ends. Until a
 * sequence finishes or a request arrives, the iterations that follow are the
 * same sequences decoding one more token each (context + B per iteration),
 * so they are run here in one go, each priced as one, with the pages each
 * iteration adds counted by residue (a sequence needs a new page when its
 * context passes a multiple of page_size). Stops before an iteration whose
 * pages are not free (the general path preempts). Sets rp->group, the
 * iterations in the run, and rp->t_end, when the last ends. The loop keeps
 * its sums in locals (the same additions in the same order). */
static void run_decodes(sim_t *s, sim_replica *rp, serving_iteration mix)
{
    const int B = rp->n_sched, page = s->page;
    int left = INT32_MAX;
    for (int j = 0; j < B; j++) {
        const sim_req *r = &s->req[rp->sched_req[j]];
        int rem = r->output - r->generated;
        if (rem < left)
            left = rem;
    }
    if (left < 3)
        return;
    /* residue of each sequence's context after the first iteration (computed + 1) */
    for (int j = 0; j < B; j++)
        rp->residue[(s->req[rp->sched_req[j]].computed + 1) % page]++;
    const serving_iter_cost cost = *s->cost;
    const double win_a = s->win_a, win_b = s->win_b, next_arrival = s->next_arrival;
    const int *residue = rp->residue, total_pages = s->total_pages;
    double t = rp->t_end, page_time = s->kv_page_time, tokens = s->tokens_in_window;
    int free_pages = rp->free_pages, k = 1;
    /* iteration k: context a + k needs a new page where a + k - 1 is a
     * multiple of page, i.e. where a = (1 - k) mod page: r steps down */
    for (int r = 0; k < left && t < next_arrival; r = r == 0 ? page - 1 : r - 1) {
        int inc = residue[r];
        if (inc > free_pages)
            break;
        free_pages -= inc;
        mix.decode_ctx += B;
        double dt = serving_iteration_time(&cost, &mix);
        add_page_time(&page_time, total_pages - free_pages, t, t + dt, win_a, win_b);
        /* tokens of the iterations before this one, emitted at t */
        if (t >= win_a && t <= win_b)
            tokens += B;
        t += dt;
        k++;
    }
    rp->free_pages = free_pages;
    s->kv_page_time = page_time;
    s->tokens_in_window = tokens;
    for (int j = 0; j < B; j++)
        rp->residue[(s->req[rp->sched_req[j]].computed + 1) % page]--;
    if (k == 1)
        return;
    rp->group = k;
    rp->t_end = t;
    s->iterations += k - 1;
    s->batch_sum += (long long)(k - 1) * B;
}

/* Start an iteration on replica k at time t, if it has work; returns whether it did. */
static bool start_iteration(sim_t *s, int k, double t)
{
    sim_replica *rp = &s->rep[k];
    serving_iteration it = {0};
    rp->n_sched = 0;
    int budget = s->budget;
    bool preempted = false;

    if (!s->chunked) {
        /* Whole prompts first (each alone may exceed the budget), else decodes. */
        while (rp->waiting.head >= 0 && rp->n_run < s->max_seqs) {
            sim_req *r = &s->req[rp->waiting.head];
            int n = r->target - r->computed;
            if (rp->n_sched > 0 && n > budget)
                break;
            if (!admit(s, rp, n, &it))
                break;
            budget -= n;
        }
    }
    if (rp->n_sched == 0) {
        /* Decodes first, in admission order; a sequence that needs a page
         * when none is free preempts the newest, itself if it is the newest.
         * The walk notes the sequences still prefilling: a preemption takes
         * only sequences after the one visited, so when the walk ends with
         * budget left, every running sequence has been seen and the noted
         * ones are all those prefilling. */
        int n_prefilling = 0, n_sched = 0, free_pages = rp->free_pages;
        long long decode_ctx = 0; /* the decode steps' contexts: integers, summed exactly */
        for (int j = 0; j < rp->n_run && budget > 0; j++) {
            const int i = rp->run[j];
            sim_req *r = &s->req[i];
            if (!is_decoding(r)) {
                rp->prefilling[n_prefilling++] = i;
                continue;
            }
            int need = pages_needed(s, r->computed + 1, r->pages);
            if (need > free_pages) {
                rp->free_pages = free_pages;
                while (need > rp->free_pages && rp->n_run - 1 > j) {
                    preempt_last(s, rp);
                    preempted = true;
                }
                free_pages = rp->free_pages;
                if (need > free_pages) {
                    preempt_last(s, rp);
                    preempted = true;
                    free_pages = rp->free_pages;
                    break;
                }
            }
            free_pages -= need;
            r->pages += need;
            decode_ctx += r->computed + 1;
            rp->sched_req[n_sched] = i;
            rp->sched_tok[n_sched] = 1;
            n_sched++;
            budget -= 1;
        }
        rp->free_pages = free_pages;
        rp->n_sched = n_sched;
        it.decode_seqs = n_sched;
        it.decode_ctx = (double)decode_ctx;
        /* Then the prompts in progress, a chunk each, within the budget and
         * the free pages (chunked prefill only: otherwise none is left). */
        for (int j = 0; j < n_prefilling && budget > 0; j++) {
            const int i = rp->prefilling[j];
            sim_req *r = &s->req[i];
            int n = r->target - r->computed;
            if (n > s->chunk)
                n = s->chunk;
            if (n > budget)
                n = budget;
            int room = (rp->free_pages + r->pages) * s->page - r->computed;
            if (n > room)
                n = room;
            if (n <= 0)
                continue;
            int need = pages_needed(s, r->computed + n, r->pages);
            rp->free_pages -= need;
            r->pages += need;
            add_prefill(r, n, &it);
            schedule(rp, i, n);
            budget -= n;
        }
        if (s->chunked && !preempted) {
            while (rp->waiting.head >= 0 && rp->n_run < s->max_seqs && budget > 0) {
                sim_req *r = &s->req[rp->waiting.head];
                int n = r->target - r->computed;
                if (n > s->chunk)
                    n = s->chunk;
                if (n > budget)
                    n = budget;
                if (!admit(s, rp, n, &it))
                    break;
                budget -= n;
            }
        }
    }
    if (rp->n_sched == 0) {
        rp->busy = false;
        return false;
    }
    double dt = serving_iteration_time(s->cost, &it);
    rp->busy = true;
    rp->t_start = t;
    rp->t_end = t + dt;
    rp->group = 0;
    s->iterations++;
    s->batch_sum += rp->n_sched;
    /* pages held during the iteration, inside the window */
    add_page_time(&s->kv_page_time, s->total_pages - rp->free_pages, t, t + dt, s->win_a, s->win_b);
    if (it.prefill_tokens == 0 && !preempted && rp->waiting.count == 0 && rp->n_sched == rp->n_run &&
        rp->t_end < s->next_arrival)
        run_decodes(s, rp, it);
    heap_push(s, k);
    return true;
}

/* Take the sequences that finished out of the running ones, in order. */
static void drop_done(sim_t *s, sim_replica *rp)
{
    int m = 0;
    for (int j = 0; j < rp->n_run; j++)
        if (s->req[rp->run[j]].state != ST_DONE)
            rp->run[m++] = rp->run[j];
    rp->n_run = m;
}

static void end_iteration(sim_t *s, int k)
{
    sim_replica *rp = &s->rep[k];
    double t = rp->t_end;
    int done = 0;
    if (rp->group > 0) {
        /* a run of decode-only iterations: the tokens of all but the last
         * were counted as they were run */
        int g = rp->group;
        for (int j = 0; j < rp->n_sched; j++) {
            int i = rp->sched_req[j];
            sim_req *r = &s->req[i];
            r->computed += g;
            r->generated += g;
            r->pages = pages_for(s, r->computed);
            if (r->generated >= r->output) {
                r->finish = t;
                r->state = ST_DONE;
                rp->free_pages += r->pages;
                r->pages = 0;
                done++;
            }
        }
        if (t >= s->win_a && t <= s->win_b)
            s->tokens_in_window += rp->n_sched;
        if (done)
            drop_done(s, rp);
        rp->group = 0;
        rp->busy = false;
        return;
    }
    int emitted = 0;
    for (int j = 0; j < rp->n_sched; j++) {
        sim_req *r = &s->req[rp->sched_req[j]];
        bool emits = is_decoding(r);
        r->computed += rp->sched_tok[j];
        if (!emits && r->computed >= r->target)
            emits = true;
        if (!emits)
            continue;
        if (r->generated == 0)
            r->first = t;
        r->generated++;
        emitted++;
        if (r->generated >= r->output) {
            r->finish = t;
            r->state = ST_DONE;
            rp->free_pages += r->pages;
            r->pages = 0;
            done++;
        }
    }
    /* token counts are integers: a double sums them exactly in any order */
    if (t >= s->win_a && t <= s->win_b)
        s->tokens_in_window += emitted;
    if (done)
        drop_done(s, rp);
    rp->busy = false;
}

static int route(const sim_t *s, int i, int policy)
{
    if (policy == ROUTE_RR)
        return i % s->n_rep;
    int best = 0, best_n = s->rep[0].waiting.count + s->rep[0].n_run;
    for (int k = 1; k < s->n_rep; k++) {
        int n = s->rep[k].waiting.count + s->rep[k].n_run;
        if (n < best_n) {
            best = k;
            best_n = n;
        }
    }
    return best;
}

static int run_events(sim_t *s, int n_req, int policy)
{
    int next = 0;
    for (;;) {
        s->next_arrival = next < n_req ? s->req[next].arrival : INFINITY;
        double t_rep = s->heap_n > 0 ? s->rep[s->heap[0]].t_end : INFINITY;
        if (next < n_req && s->req[next].arrival <= t_rep) {
            sim_req *r = &s->req[next];
            int k = route(s, next, policy);
            r->replica = k;
            enqueue_waiting(s, &s->rep[k], next, false);
            next++;
            s->next_arrival = next < n_req ? s->req[next].arrival : INFINITY;
            if (!s->rep[k].busy)
                start_iteration(s, k, r->arrival);
        } else if (s->heap_n > 0) {
            int k = heap_pop(s);
            end_iteration(s, k);
            start_iteration(s, k, s->rep[k].t_end);
            if (s->iterations > s->iter_cap)
                return -1;
        } else {
            break;
        }
    }
    return 0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The percentiles reported: the table's rows, which include the outputs' 50, 90 and 99. */
static const double PCTS[] = {50, 90, 95, 99, 99.9, 100};
#define N_PCTS (sizeof PCTS / sizeof PCTS[0])

/* The two ranks percentile q interpolates between, in v[0..n), n > 0. */
static void percentile_ranks(int n, double q, double *pos, int *lo, int *hi)
{
    *pos = q / 100.0 * (n - 1);
    *lo = (int)floor(*pos);
    *hi = *lo + 1 < n ? *lo + 1 : n - 1;
}

/* numpy's default percentile (linear interpolation) of v[0..n), whose
 * ranks for q are in place (select_percentiles). */
static double percentile(const double *v, int n, double q)
{
    if (n <= 0)
        return NAN;
    double pos;
    int lo, hi;
    percentile_ranks(n, q, &pos, &lo, &hi);
    return v[lo] + (v[hi] - v[lo]) * (pos - lo);
}

static inline void swap_double(double *a, double *b)
{
    double t = *a;
    *a = *b;
    *b = t;
}

/* Put into v[k] the value that sorting v[lo..hi] would put there, for each
 * k of ranks[0..nr) (ascending, inside [lo, hi]): quickselect on several
 * ranks at once, partitioning three ways (below, equal to, above a median
 * of three) and going on only into the parts holding a rank. After 64
 * partitions of one range (samples that defeat the median of three) the
 * range is sorted instead, so the work stays O(n log n). */
static void select_ranks(double *v, int lo, int hi, const int *ranks, int nr)
{
    for (int rounds = 0; nr > 0 && hi - lo >= 16; rounds++) {
        if (rounds == 64) {
            qsort(v + lo, (size_t)(hi - lo + 1), sizeof *v, cmp_double);
            return;
        }
        int mid = lo + (hi - lo) / 2;
        if (v[mid] < v[lo])
            swap_double(&v[mid], &v[lo]);
        if (v[hi] < v[lo])
            swap_double(&v[hi], &v[lo]);
        if (v[hi] < v[mid])
            swap_double(&v[hi], &v[mid]);
        const double pivot = v[mid];
        int lt = lo, i = lo, gt = hi; /* v[lo..lt) < pivot, v[lt..i) == pivot, v(gt..hi] > pivot */
        while (i <= gt) {
            if (v[i] < pivot)
                swap_double(&v[lt++], &v[i++]);
            else if (v[i] > pivot)
                swap_double(&v[i], &v[gt--]);
            else
                i++;
        }
        int below = 0, above = nr;
        while (below < nr && ranks[below] < lt)
            below++;
        while (above > below && ranks[above - 1] > gt)
            above--;
        /* ranks[below..above) fall among the pivot's equals: in place */
        if (below < nr - above) {
            select_ranks(v, lo, lt - 1, ranks, below);
            lo = gt + 1;
            ranks += above;
            nr -= above;
        } else {
            select_ranks(v, gt + 1, hi, ranks + above, nr - above);
            hi = lt - 1;
            nr = below;
        }
    }
    if (nr > 0)
        for (int i = lo + 1; i <= hi; i++) /* insertion sort of a short range */
            for (int j = i; j > lo && v[j] < v[j - 1]; j--)
                swap_double(&v[j], &v[j - 1]);
}

/* Put in place the ranks every reported percentile of v[0..n) reads. */
static void select_percentiles(double *v, int n)
{
    if (n <= 0)
        return;
    int ranks[2 * N_PCTS], nr = 0;
    for (size_t q = 0; q < N_PCTS; q++) {
        double pos;
        int lo, hi;
        percentile_ranks(n, PCTS[q], &pos, &lo, &hi);
        ranks[nr++] = lo;
        ranks[nr++] = hi;
    }
    /* ascending, without repeats (a short insertion sort: neighbouring
     * percentiles of few samples share ranks) */
    for (int k = 1; k < nr; k++)
        for (int j = k; j > 0 && ranks[j] < ranks[j - 1]; j--) {
            int t = ranks[j];
            ranks[j] = ranks[j - 1];
            ranks[j - 1] = t;
        }
    int m = 0;
    for (int k = 0; k < nr; k++)
        if (m == 0 || ranks[k] != ranks[m - 1])
            ranks[m++] = ranks[k];
    select_ranks(v, 0, n - 1, ranks, m);
}

static double mean_of(const double *v, int n)
{
    double sum = 0;
    for (int i = 0; i < n; i++)
        sum += v[i];
    return n > 0 ? sum / n : NAN;
}

static void out_maybe(solver_outputs *out, int idx, double v)
{
    if (isfinite(v))
        out_num(out, idx, v);
    else
        out_null(out, idx);
}

static void all_null(solver_outputs *out)
{
    for (int o = 0; o < O_N; o++)
        if (o != O_FEASIBLE && o != O_KV_TOKENS)
            out_null(out, o);
}

static int run_sim(const solver_inputs *in, solver_outputs *out, solver_error *err)
{
    const model_t *m = in_model(in, I_MODEL);
    const hw_node *hw = in_hw(in, I_HARDWARE);
    if (llm_require_transformer(m, "model", err) != 0)
        return -1;
    /* The requests: the client's trace, or a draw of num_requests. */
    const bool traced = in_has(in, I_TRACE);
    const int n_req = request_count(in);
    double out_mean, prompt_mean, out_total;
    if (traced) {
        double sum_p = 0, sum_o = 0;
        for (int j = 0; j < n_req; j++) {
            sum_p += in_row(in, I_TRACE, j, F_N)[F_PROMPT];
            sum_o += in_row(in, I_TRACE, j, F_N)[F_OUTPUT];
        }
        prompt_mean = sum_p / n_req;
        out_mean = sum_o / n_req;
        out_total = sum_o;
    } else {
        prompt_mean = in_num(in, I_PROMPT);
        out_mean = in_num(in, I_OUTPUT);
        out_total = (double)n_req * out_mean;
    }
    if (n_req > MAX_REQUESTS) {
        solver_fail(err, "num_requests", "num_requests (%d) is over the cap of %d simulated requests", n_req,
                    MAX_REQUESTS);
        err->status = 413;
        return -1;
    }
    if (out_total > MAX_GENERATED_TOKENS) {
        solver_fail(err, traced ? "request_trace" : "num_requests",
                    "%s (%.0f) is over the cap of %.0f simulated output tokens",
                    traced ? "the output tokens of request_trace" : "num_requests x output_tokens", out_total,
                    MAX_GENERATED_TOKENS);
        err->status = 413;
        return -1;
    }
    const double tp = in_num(in, I_TP);
    const int n_rep = in_int(in, I_REPLICAS);
    const bool measured = in->calibration == CALIBRATION_MEASURED;
    serving_params p = {.model = m, .hw = hw, .seq_len = prompt_mean, .batch = 1,
                        .precision = in_enum(in, I_PRECISION), .efficiency = in_num(in, I_EFFICIENCY)};
    serving_iter_cost cost;
    serving_iteration_cost(&p, tp, measured, !in->v[I_EFFICIENCY].defaulted, &cost);

    /* KV pages of one replica: what the weights leave of the usable memory. */
    const int page = in_int(in, I_PAGE);
    double usable = hw->mem_capacity * tp * in_num(in, I_MEM_UTIL);
    double kv_budget = usable - cost.weight_bytes;
    double page_bytes = cost.kv_bytes_per_token * page;
    double pages_d = kv_budget > 0 && page_bytes > 0 ? floor(kv_budget / page_bytes) : 0;
    if (pages_d * page > 1e9) /* tokens stay ints */
        pages_d = floor(1e9 / page);
    const int total_pages = (int)pages_d;
    const double cap_tokens = pages_d * page;
    out_int(out, O_KV_TOKENS, cap_tokens);
    if (!out->quiet) {
        char w[48], have[48];
        llm_format_gb(cost.weight_bytes, w, sizeof w);
        llm_format_gb(usable, have, sizeof have);
        solver_trace(out, "Memory: weights %s of %s usable per replica (%.0f x %s x %g); KV cache for %.0f tokens in "
                          "pages of %d.",
                     w, have, tp, hw->name, in_num(in, I_MEM_UTIL), cap_tokens, page);
    }
    if (kv_budget <= 0 || prompt_mean + out_mean > cap_tokens) {
        solver_warn(out, "infeasible: %s", kv_budget <= 0 ? "the weights do not fit a replica's usable memory"
                                                          : "a request of the mean lengths does not fit the KV cache");
        out_bool(out, O_FEASIBLE, false);
        all_null(out);
        return 0;
    }
    out_bool(out, O_FEASIBLE, true);

    const int warmup = in_has(in, I_WARMUP) ? in_int(in, I_WARMUP) : n_req / 10;
    const int max_seqs = in_int(in, I_MAX_SEQS);
    sim_t s = {.cost = &cost, .n_rep = n_rep, .max_seqs = max_seqs, .budget = in_int(in, I_MAX_TOKENS),
               .page = page, .total_pages = total_pages, .chunked = in_bool(in, I_CHUNKED)};
    s.chunk = in_has(in, I_CHUNK) ? in_int(in, I_CHUNK) : s.budget;
    if (!s.chunked)
        s.chunk = 1 << 30;

    /* Everything sized up front: requests, replicas, schedules, heap, and the samples. */
    s.req = aligned_alloc(SIM_REQ_ALIGN, (size_t)n_req * sizeof *s.req);
    s.rep = calloc((size_t)n_rep, sizeof *s.rep);
    int *sched = calloc((size_t)n_rep * (4 * (size_t)max_seqs + (size_t)page), sizeof(int));
    s.heap = malloc(sizeof(int) * (size_t)n_rep);
    double *samples = malloc(sizeof(double) * 3 * (size_t)n_req);
    if (!s.req || !s.rep || !sched || !s.heap || !samples) {
        free(s.req);
        free(s.rep);
        free(sched);
        free(s.heap);
        free(samples);
        return solver_fail(err, "num_requests", "out of memory for %d simulated requests", n_req);
    }
    memset(s.req, 0, (size_t)n_req * sizeof *s.req);
    for (int k = 0; k < n_rep; k++) {
        sim_replica *rp = &s.rep[k];
        rp->waiting = (sim_list){-1, -1, 0};
        rp->free_pages = total_pages;
        rp->sched_req = sched + (size_t)2 * k * max_seqs;
        rp->sched_tok = rp->sched_req + max_seqs;
        rp->prefilling = sched + (size_t)n_rep * 2 * max_seqs + (size_t)k * max_seqs;
        rp->run = sched + (size_t)n_rep * 3 * max_seqs + (size_t)k * max_seqs;
        rp->residue = sched + (size_t)n_rep * 4 * max_seqs + (size_t)k * page;
    }

    /* Arrivals and lengths: the trace's rows, or the seeded draw (core/request_draw.h). */
    const uint64_t seed = (uint64_t)in_num(in, I_SEED);
    request_drawer drawer;
    if (!traced) {
        const request_draw_spec spec = {
            .rate = in_num(in, I_RATE), .gamma = in_enum(in, I_ARRIVAL) == ARR_GAMMA,
            .arrival_cv = in_num(in, I_ARRIVAL_CV), .prompt_dist = in_enum(in, I_PROMPT_DIST),
            .output_dist = in_enum(in, I_OUTPUT_DIST), .prompt_mean = prompt_mean, .output_mean = out_mean,
            .length_cv = in_num(in, I_LENGTH_CV), .seed = seed};
        request_draw_init(&drawer, &spec);
    }
    int clipped = 0;
    long long gen_total = 0;
    for (int i = 0; i < n_req; i++) {
        sim_req *r = &s.req[i];
        if (traced) {
            const double *row = in_row(in, I_TRACE, i, F_N);
            r->arrival = row[F_ARRIVAL];
            r->prompt = (int)row[F_PROMPT];
            r->output = (int)row[F_OUTPUT];
        } else {
            request_draw_next(&drawer, &r->arrival, &r->prompt, &r->output);
        }
        if (r->prompt + r->output > cap_tokens) {
            clipped++;
            if (r->prompt > cap_tokens - 1)
                r->prompt = (int)cap_tokens - 1;
            r->output = (int)cap_tokens - r->prompt;
        }
        r->target = r->prompt;
        r->next = r->prev = -1;
        r->first = r->finish = NAN;
        gen_total += r->output + r->prompt / (s.chunked ? (s.chunk < s.budget ? s.chunk : s.budget) : r->prompt) + 1;
    }
    s.iter_cap = 20 * gen_total + 100000;
    s.win_a = s.req[warmup].arrival;
    s.win_b = s.req[n_req - 1].arrival;
    if (clipped)
        solver_warn(out, "%d %s requests did not fit the KV cache (%.0f tokens): their lengths were cut to fit",
                    clipped, traced ? "traced" : "drawn", cap_tokens);

    const bool bounded = s.win_b > s.win_a;
    if (!bounded)
        s.win_b = INFINITY; /* one measured arrival: the window runs to the last completion */
    int rc = run_events(&s, n_req, in_enum(in, I_ROUTING));
    if (rc != 0) {
        free(s.req);
        free(s.rep);
        free(sched);
        free(s.heap);
        free(samples);
        return solver_fail(err, "num_requests",
                           "the simulation passed its bound of %lld iterations (sequences preempted over and over: "
                           "the KV cache is too small for this load)",
                           s.iter_cap);
    }

    /* Statistics over the measured requests and the window. */
    if (!bounded) {
        s.win_b = s.win_a;
        for (int i = warmup; i < n_req; i++)
            s.win_b = fmax(s.win_b, s.req[i].finish);
        /* the page integral and tokens above ran to the end: keep them */
    }
    const double window = s.win_b - s.win_a;
    const int n_meas = n_req - warmup;
    double *ttft = samples, *tpot = samples + n_req, *e2e = samples + 2 * n_req;
    int n_tpot = 0, good = 0, done_in_window = 0;
    const bool has_slo_t = in_has(in, I_SLO_TTFT), has_slo_p = in_has(in, I_SLO_TPOT);
    const double slo_t = has_slo_t ? in_num(in, I_SLO_TTFT) : 0, slo_p = has_slo_p ? in_num(in, I_SLO_TPOT) : 0;
    double in_sys = 0;
    for (int i = 0; i < n_req; i++) {
        const sim_req *r = &s.req[i];
        double a = fmax(r->arrival, s.win_a), b = fmin(r->finish, s.win_b);
        if (b > a)
            in_sys += b - a;
        if (r->finish >= s.win_a && r->finish <= s.win_b)
            done_in_window++;
    }
    for (int i = warmup, j = 0; i < n_req; i++, j++) {
        const sim_req *r = &s.req[i];
        double ft = (r->first - r->arrival) * 1e3, e = (r->finish - r->arrival) * 1e3;
        double tp_tok = r->output > 1 ? (r->finish - r->first) * 1e3 / (r->output - 1) : NAN;
        ttft[j] = ft;
        e2e[j] = e;
        if (r->output > 1)
            tpot[n_tpot++] = tp_tok;
        bool ok = (!has_slo_t || ft <= slo_t) && (!has_slo_p || r->output <= 1 || tp_tok <= slo_p);
        good += ok;
    }
    double ttft_mean = mean_of(ttft, n_meas), tpot_mean = mean_of(tpot, n_tpot), e2e_mean = mean_of(e2e, n_meas);
    select_percentiles(ttft, n_meas);
    select_percentiles(tpot, n_tpot);
    select_percentiles(e2e, n_meas);

    const double throughput = window > 0 ? done_in_window / window : NAN;
    out_maybe(out, O_TTFT_MEAN, ttft_mean);
    out_maybe(out, O_TTFT_P50, percentile(ttft, n_meas, 50));
    out_maybe(out, O_TTFT_P90, percentile(ttft, n_meas, 90));
    out_maybe(out, O_TTFT_P99, percentile(ttft, n_meas, 99));
    out_maybe(out, O_TPOT_MEAN, tpot_mean);
    out_maybe(out, O_TPOT_P50, percentile(tpot, n_tpot, 50));
    out_maybe(out, O_TPOT_P90, percentile(tpot, n_tpot, 90));
    out_maybe(out, O_TPOT_P99, percentile(tpot, n_tpot, 99));
    out_maybe(out, O_E2E_MEAN, e2e_mean);
    out_maybe(out, O_E2E_P99, percentile(e2e, n_meas, 99));
    out_maybe(out, O_THROUGHPUT, throughput);
    out_maybe(out, O_TOKENS_S, window > 0 ? s.tokens_in_window / window : NAN);
    out_maybe(out, O_IN_SYSTEM, window > 0 ? in_sys / window : NAN);
    if (has_slo_t || has_slo_p) {
        out_maybe(out, O_SLO_ATTAIN, (double)good / n_meas);
        out_maybe(out, O_GOODPUT, throughput * good / n_meas);
    } else {
        out_null(out, O_SLO_ATTAIN);
        out_null(out, O_GOODPUT);
    }
    out_maybe(out, O_KV_UTIL, window > 0 && total_pages > 0 ? s.kv_page_time / (window * n_rep * total_pages) : NAN);
    out_int(out, O_PREEMPT, (double)s.preemptions);
    out_int(out, O_MAX_QUEUE, s.max_waiting);
    out_maybe(out, O_MEAN_BATCH, s.iterations > 0 ? (double)s.batch_sum / s.iterations : NAN);
    out_int(out, O_ITERATIONS, (double)s.iterations);
    out_int(out, O_MEASURED, n_meas);
    out_int(out, O_WARMUP, warmup);
    out_maybe(out, O_WINDOW, window);

    for (size_t q = 0; q < N_PCTS; q++) {
        int row = out_row(out);
        if (row < 0)
            break;
        out_cell_num(out, row, C_PCT, PCTS[q]);
        out_cell_num(out, row, C_TTFT, percentile(ttft, n_meas, PCTS[q]));
        out_cell_num(out, row, C_TPOT, percentile(tpot, n_tpot, PCTS[q]));
        out_cell_num(out, row, C_E2E, percentile(e2e, n_meas, PCTS[q]));
    }

    if (!out->quiet) {
        char source[64];
        if (traced)
            snprintf(source, sizeof source, "from request_trace");
        else
            snprintf(source, sizeof source, "drawn with seed %llu", (unsigned long long)seed);
        solver_trace(out, "Simulated %d requests (%s) on %d replica(s) in %lld iterations; the first %d are "
                          "warm-up, left out of the statistics.",
                     n_req, source, n_rep, s.iterations, warmup);
        solver_trace(out, "Iterations priced by %s: prefill compute and decode memory traffic overlap within an "
                          "iteration (the larger counts).",
                     measured ? "measured mode's fitted serving terms" : "serving's arithmetic (mlsysim mode)");
        /* the offered rate: the trace's rows over its span, or arrival_rate_qps */
        double span = s.req[n_req - 1].arrival - s.req[0].arrival;
        double rate = traced ? (span > 0 ? (n_req - 1) / span : NAN) : in_num(in, I_RATE);
        if (throughput < 0.9 * rate && n_meas > 20)
            solver_warn(out, "the servers do not keep up: %.3g requests/s completed of %.3g arriving, and the queue "
                             "grows through the run (latencies depend on num_requests)",
                        throughput, rate);
    }
    free(s.req);
    free(s.rep);
    free(sched);
    free(s.heap);
    free(samples);
    return 0;
}

static const char *const ALIASES[] = {"ServingSimulation", NULL};

const solver_desc SOLVER_SERVING_SIMULATION = {
    .name = "serving_simulation",
    .aliases = ALIASES,
    .title = "Serving under load: a request-level simulation of continuous batching (TTFT/TPOT percentiles, "
             "goodput, KV cache, preemption)",
    .description = "Requests arrive (Poisson or gamma) with fixed or drawn prompt and output lengths, or as an "
                   "explicit trace of {arrival_s, prompt_tokens, output_tokens}, and are routed "
                   "to replicas that run an iteration-level scheduler as vLLM and SGLang do: decodes and chunked "
                   "prefills share iterations within max_num_seqs and max_num_batched_tokens, the KV cache is paged "
                   "and a full cache preempts the newest sequence, which recomputes later (Yu et al. 2022, ORCA; "
                   "Kwon et al. 2023, PagedAttention; Agrawal et al. 2024, Sarathi-Serve; Vidur, LLMServingSim). "
                   "Each iteration is priced from its mix of prefill tokens and decode sequences by the serving "
                   "model, in the request's calibration mode. Reports TTFT, TPOT and end-to-end percentiles, "
                   "throughput, goodput under SLOs, KV utilisation and preemptions; seeded, so reproducible.",
    .assumptions = "Iteration times from the serving model (prefill compute and decode memory traffic overlapping "
                   "within an iteration), FCFS admission, preemption by recompute of the newest sequence, "
                   "independent replicas behind one router. Leaves out prefix caching, speculative decoding, "
                   "disaggregated prefill and decode, swapping to host memory, and CPU and network overheads "
                   "outside the iteration.",
    .inputs = INPUTS,
    .n_inputs = I_N,
    .outputs = OUTPUTS,
    .n_outputs = O_N,
    .constraints = CONSTRAINTS,
    .n_constraints = sizeof CONSTRAINTS / sizeof CONSTRAINTS[0],
    .table = &TABLE,
    .run = run_sim,
    .example_json = "{\"model\":\"Llama3_8B\",\"hardware\":\"H100\",\"arrival_rate_qps\":10,\"prompt_tokens\":2048,"
                    "\"output_tokens\":256,\"output_distribution\":\"exponential\",\"num_requests\":1000,"
                    "\"slo_ttft_ms\":500,\"slo_tpot_ms\":50}",
};
