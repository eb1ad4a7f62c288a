/* metrics.c - see metrics.h. Names follow Prometheus conventions: base
 * units (seconds, bytes), _total counters. */
#include "server/metrics.h"

#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "build_info.h"
#include "core/solver.h"

/* Counters by row of the route table; the last slot counts requests no row answered. */
#define R__N (METRICS_MAX_ROUTES + 1)
static const route *g_routes;
static size_t g_n_routes;
static const char *const METHODS[M__N] = {"GET", "POST", "HEAD", "OPTIONS", "other"};

/* Status codes the service produces; anything else lands in the last slot. */
static const int STATUSES[] = {200, 204, 304, 400, 404, 405, 406, 408, 413, 414, 415, 429, 500, 503, 0};
#define N_STATUS (sizeof STATUSES / sizeof STATUSES[0])

static const double BUCKETS[] = {0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25,
                                 0.5, 1, 2.5, 5, 10, 30, 60};
#define N_BUCKETS (sizeof BUCKETS / sizeof BUCKETS[0])
#define MAX_SOLVERS 64

static atomic_ullong requests[R__N][M__N][N_STATUS];
static atomic_ullong hist[R__N][N_BUCKETS + 1];
static atomic_ullong hist_sum_ns[R__N];
static atomic_ullong solves[MAX_SOLVERS];
static atomic_ullong sweep_points;
static atomic_ullong response_bytes[R__N];
static atomic_long inflight;
static atomic_long sweep_helpers;
static double start_time;

void metrics_routes(const route *table, size_t n)
{
    g_routes = table;
    g_n_routes = n < METRICS_MAX_ROUTES ? n : METRICS_MAX_ROUTES;
}

/* A row's slot: its index in the table, or the last slot. */
static size_t slot_of(const route *r)
{
    if (r && g_routes && r >= g_routes && r < g_routes + g_n_routes)
        return (size_t)(r - g_routes);
    return R__N - 1;
}

const char *route_label(const route *r) { return r && r->label ? r->label : "other"; }

/* The label of slot i ("" for a slot no row has). */
static const char *slot_label(size_t i)
{
    if (i == R__N - 1)
        return "other";
    return i < g_n_routes ? g_routes[i].label : "";
}

method_id method_of(const char *m)
{
    for (int i = 0; i < M_OTHER; i++)
        if (strcmp(m, METHODS[i]) == 0)
            return (method_id)i;
    return M_OTHER;
}

void metrics_init(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    start_time = (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void metrics_request(const route *rt, method_id m, int status, double seconds)
{
    size_t r = slot_of(rt);
    size_t s = N_STATUS - 1;
    for (size_t i = 0; i + 1 < N_STATUS; i++)
        if (STATUSES[i] == status)
            s = i;
    atomic_fetch_add_explicit(&requests[r][m][s], 1, memory_order_relaxed);
    size_t b = 0;
    while (b < N_BUCKETS && seconds > BUCKETS[b])
        b++;
    atomic_fetch_add_explicit(&hist[r][b], 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&hist_sum_ns[r], (unsigned long long)(seconds * 1e9), memory_order_relaxed);
}

void metrics_solve(unsigned i)
{
    if (i < MAX_SOLVERS)
        atomic_fetch_add_explicit(&solves[i], 1, memory_order_relaxed);
}

void metrics_sweep_points(unsigned long long n) { atomic_fetch_add_explicit(&sweep_points, n, memory_order_relaxed); }

void metrics_response_bytes(const route *rt, unsigned long long n)
{
    atomic_fetch_add_explicit(&response_bytes[slot_of(rt)], n, memory_order_relaxed);
}

void metrics_inflight(int delta) { atomic_fetch_add_explicit(&inflight, delta, memory_order_relaxed); }

void metrics_sweep_helpers(int delta) { atomic_fetch_add_explicit(&sweep_helpers, delta, memory_order_relaxed); }

long metrics_inflight_now(void) { return atomic_load(&inflight); }

/* Linux /proc figures; 0 where /proc is missing (the metric stays, at 0). */
static void memory_bytes(long *virt, long *rss)
{
    FILE *f = fopen("/proc/self/statm", "r");
    long pages = 0, res = 0;
    if (f) {
        if (fscanf(f, "%ld %ld", &pages, &res) != 2)
            pages = res = 0;
        fclose(f);
    }
    *virt = pages * sysconf(_SC_PAGESIZE);
    *rss = res * sysconf(_SC_PAGESIZE);
}

static long open_fds(void)
{
    DIR *d = opendir("/proc/self/fd");
    if (!d)
        return 0;
    long n = 0;
    for (struct dirent *e; (e = readdir(d));)
        if (e->d_name[0] != '.')
            n++;
    closedir(d);
    return n - 1; /* the directory stream's own descriptor */
}

void metrics_render(strbuf *b)
{
    sb_puts(b, "# HELP mlsysd_http_requests_total HTTP requests by route template, method and status.\n"
               "# TYPE mlsysd_http_requests_total counter\n");
    for (int r = 0; r < R__N; r++)
        for (int m = 0; m < M__N; m++)
            for (size_t s = 0; s < N_STATUS; s++) {
                unsigned long long n = atomic_load_explicit(&requests[r][m][s], memory_order_relaxed);
                if (!n)
                    continue;
                char st[8];
                if (STATUSES[s])
                    snprintf(st, sizeof st, "%d", STATUSES[s]);
                else
                    snprintf(st, sizeof st, "other");
                sb_printf(b, "mlsysd_http_requests_total{route=\"%s\",method=\"%s\",status=\"%s\"} %llu\n", slot_label((size_t)r),
                          METHODS[m], st, n);
            }
    sb_puts(b, "# HELP mlsysd_http_response_bytes_total Response body bytes sent, by route template.\n"
               "# TYPE mlsysd_http_response_bytes_total counter\n");
    for (int r = 0; r < R__N; r++) {
        unsigned long long n = atomic_load_explicit(&response_bytes[r], memory_order_relaxed);
        if (n)
            sb_printf(b, "mlsysd_http_response_bytes_total{route=\"%s\"} %llu\n", slot_label((size_t)r), n);
    }
    sb_puts(b, "# HELP mlsysd_http_request_duration_seconds From the request line to the last byte of the response "
               "(a streamed sweep counts until its end).\n"
               "# TYPE mlsysd_http_request_duration_seconds histogram\n");
    for (int r = 0; r < R__N; r++) {
        unsigned long long cum = 0, counts[N_BUCKETS + 1];
        for (size_t i = 0; i <= N_BUCKETS; i++) {
            counts[i] = atomic_load_explicit(&hist[r][i], memory_order_relaxed);
            cum += counts[i];
        }
        if (!cum)
            continue;
        unsigned long long run = 0;
        for (size_t i = 0; i < N_BUCKETS; i++) {
            run += counts[i];
            sb_printf(b, "mlsysd_http_request_duration_seconds_bucket{route=\"%s\",le=\"%g\"} %llu\n", slot_label((size_t)r),
                      BUCKETS[i], run);
        }
        sb_printf(b, "mlsysd_http_request_duration_seconds_bucket{route=\"%s\",le=\"+Inf\"} %llu\n", slot_label((size_t)r), cum);
        sb_printf(b, "mlsysd_http_request_duration_seconds_sum{route=\"%s\"} %.9f\n", slot_label((size_t)r),
                  (double)atomic_load(&hist_sum_ns[r]) / 1e9);
        sb_printf(b, "mlsysd_http_request_duration_seconds_count{route=\"%s\"} %llu\n", slot_label((size_t)r), cum);
    }
    sb_puts(b, "# HELP mlsysd_solves_total Solver runs (one per /solve, one per sweep point).\n"
               "# TYPE mlsysd_solves_total counter\n");
    for (size_t i = 0; i < solver_count() && i < MAX_SOLVERS; i++)
        sb_printf(b, "mlsysd_solves_total{solver=\"%s\"} %llu\n", solver_at(i)->name,
                  atomic_load_explicit(&solves[i], memory_order_relaxed));
    sb_printf(b, "# HELP mlsysd_sweep_points_total Points computed by sweeps.\n# TYPE mlsysd_sweep_points_total counter\n"
                 "mlsysd_sweep_points_total %llu\n",
              atomic_load(&sweep_points));
    sb_printf(b, "# HELP mlsysd_sweep_helper_threads Helper threads writing sweep rows now (at most --sweep-threads "
                 "minus one).\n# TYPE mlsysd_sweep_helper_threads gauge\nmlsysd_sweep_helper_threads %ld\n",
              atomic_load(&sweep_helpers));
    sb_printf(b, "# HELP mlsysd_http_requests_in_flight Requests being handled now.\n"
                 "# TYPE mlsysd_http_requests_in_flight gauge\nmlsysd_http_requests_in_flight %ld\n",
              atomic_load(&inflight));
    sb_printf(b, "# HELP mlsysd_build_info Build information.\n# TYPE mlsysd_build_info gauge\n"
                 "mlsysd_build_info{version=\"%s\",revision=\"%s\"} 1\n",
              MLSYSD_VERSION, MLSYSD_GIT_REVISION);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    double cpu = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
                 (double)ru.ru_stime.tv_usec / 1e6;
    sb_printf(b, "# HELP process_cpu_seconds_total User and system CPU time.\n# TYPE process_cpu_seconds_total counter\n"
                 "process_cpu_seconds_total %.6f\n",
              cpu);
    long virt, rss;
    memory_bytes(&virt, &rss);
    sb_printf(b, "# HELP process_resident_memory_bytes Resident set size.\n# TYPE process_resident_memory_bytes gauge\n"
                 "process_resident_memory_bytes %ld\n",
              rss);
    sb_printf(b, "# HELP process_virtual_memory_bytes Virtual memory size.\n# TYPE process_virtual_memory_bytes gauge\n"
                 "process_virtual_memory_bytes %ld\n",
              virt);
    struct rlimit rl;
    long max_fds = getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY ? (long)rl.rlim_cur : -1;
    sb_printf(b, "# HELP process_open_fds Open file descriptors (connections included).\n"
                 "# TYPE process_open_fds gauge\nprocess_open_fds %ld\n"
                 "# HELP process_max_fds Limit on open file descriptors (-1: none).\n"
                 "# TYPE process_max_fds gauge\nprocess_max_fds %ld\n",
              open_fds(), max_fds);
    sb_printf(b, "# HELP process_start_time_seconds Start time since the Unix epoch.\n"
                 "# TYPE process_start_time_seconds gauge\nprocess_start_time_seconds %.3f\n",
              start_time);
}
