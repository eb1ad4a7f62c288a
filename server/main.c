/* main.c - mlsysd: configuration, start-up, signals and graceful stop; or,
 * when the first argument names one, a batch command (cli.h). */
#include <arpa/inet.h>
#include <stdbool.h>
#include <errno.h>
#include <malloc.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <pthread.h>
#include <unistd.h>

#include "build_info.h"
#include "server/catalog_watch.h"
#include "server/cli.h"
#include "server/cpus.h"
#include "server/http.h"
#include "server/metrics.h"

/* --healthcheck: GET /healthz on loopback with a plain socket, so that the
 * container image needs no curl. */
static int healthcheck(const config *cfg)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0)
        return 1;
    struct timeval tv = {.tv_sec = 2};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)cfg->port)};
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd, (struct sockaddr *)&sa, sizeof sa) != 0) {
        fprintf(stderr, "healthcheck: cannot connect to 127.0.0.1:%d: %s\n", cfg->port, strerror(errno));
        close(fd);
        return 1;
    }
    const char *q = "GET /healthz HTTP/1.0\r\nHost: localhost\r\n\r\n";
    char buf[64] = {0};
    ssize_t n = -1;
    if (write(fd, q, strlen(q)) == (ssize_t)strlen(q))
        n = read(fd, buf, sizeof buf - 1);
    close(fd);
    int ok = n > 12 && (strncmp(buf, "HTTP/1.0 200", 12) == 0 || strncmp(buf, "HTTP/1.1 200", 12) == 0);
    if (!ok)
        fprintf(stderr, "healthcheck: unhealthy (%.20s)\n", n > 0 ? buf : "no answer");
    return ok ? 0 : 1;
}

/* Wait up to s seconds for a stop signal; true if one came. Held request log
 * lines are written on the way (every log_hold() seconds). The
 * signals are blocked in every thread, so sigtimedwait is the only way they
 * are ever delivered. */
static bool wait_signal(const sigset_t *set, double s, int *sig)
{
    struct timespec end, now;
    clock_gettime(CLOCK_MONOTONIC, &end);
    end.tv_sec += (time_t)s;
    end.tv_nsec += (long)((s - (double)(time_t)s) * 1e9);
    if (end.tv_nsec >= 1000000000L) {
        end.tv_sec++;
        end.tv_nsec -= 1000000000L;
    }
    for (;;) {
        clock_gettime(CLOCK_MONOTONIC, &now);
        double left = (double)(end.tv_sec - now.tv_sec) + (double)(end.tv_nsec - now.tv_nsec) / 1e9;
        if (left <= 0)
            return false;
        double tick = log_hold() > 0 && log_hold() < left ? log_hold() : left;
        struct timespec ts = {.tv_sec = (time_t)tick, .tv_nsec = (long)((tick - (double)(time_t)tick) * 1e9)};
        int r = sigtimedwait(set, NULL, &ts);
        if (r > 0) {
            *sig = r;
            return true;
        }
        if (r < 0 && errno != EAGAIN && errno != EINTR)
            return false;
        log_flush(); /* held request lines: at most the hold time late */
    }
}

static double elapsed(const struct timespec *t0)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - t0->tv_sec) + (double)(t.tv_nsec - t0->tv_nsec) / 1e9;
}

int main(int argc, char **argv)
{
    if (argc > 1 && cli_is_command(argv[1]))
        return cli_main(argc - 1, argv + 1);
    config cfg;
    config_defaults(&cfg);
    char msg[600];
    switch (config_parse(&cfg, argc, argv, msg, sizeof msg)) {
    case CONFIG_EXIT_OK:
        return 0;
    case CONFIG_EXIT_USAGE:
        fprintf(stderr, "mlsysd: %s\n", msg);
        return 2;
    case CONFIG_RUN:
        break;
    }
    if (cfg.healthcheck)
        return healthcheck(&cfg);
    if (cfg.threads == 0)
        cfg.threads = cpus_available(64);
    log_set_level(cfg.log_level);
    log_set_hold(cfg.log_flush_interval);
    signal(SIGPIPE, SIG_IGN);

    /* Block the stop signals before any thread starts, then wait for them here. */
    sigset_t stop;
    sigemptyset(&stop);
    sigaddset(&stop, SIGTERM);
    sigaddset(&stop, SIGINT);
    pthread_sigmask(SIG_BLOCK, &stop, NULL);

    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    /* A fixed mmap threshold: glibc otherwise raises it after large frees, so big
     * response buffers then come from the heap and fragment it, and a daemon's idle
     * memory drifts with its traffic history. */
    mallopt(M_MMAP_THRESHOLD, 128 * 1024);
    metrics_init();
    catalog *cat = NULL;
    if (catalog_load(&cat, cfg.catalog_dir[0] ? cfg.catalog_dir : NULL, msg, sizeof msg) != 0) {
        fprintf(stderr, "mlsysd: catalog%s: %s\n", cfg.catalog_dir[0] ? " (--catalog-dir / MLSYSD_CATALOG_DIR)" : "",
                msg);
        return 2;
    }
    app a;
    if (app_init(&a, cat, &cfg, msg, sizeof msg) != 0) {
        fprintf(stderr, "mlsysd: %s\n", msg);
        catalog_free(cat);
        return 2;
    }
    server *srv;
    if (server_start(&srv, &a, &cfg, msg, sizeof msg) != 0) {
        fprintf(stderr, "mlsysd: %s\n", msg);
        app_free(&a);
        catalog_free(cat);
        return 2;
    }
    /* Answers come from `cat` until exit; changes of the directory are only
     * logged, from the moment the daemon says it is ready. */
    catalog_watch *watch = cfg.catalog_dir[0] ? catalog_watch_start(cfg.catalog_dir) : NULL;
    atomic_store(&a.ready, true);
    strbuf ex;
    sb_init(&ex);
    sb_printf(&ex, "\"version\":\"%s\",\"revision\":\"%s\",\"host\":", MLSYSD_VERSION, MLSYSD_GIT_REVISION);
    sb_json_string(&ex, cfg.host);
    sb_printf(&ex, ",\"port\":%u,\"threads\":%d,\"max_body_bytes\":%zu,\"sweep_max_points\":%lld,"
                   "\"max_connections\":%d,\"max_connections_per_ip\":%d,\"connection_timeout_s\":%d,"
                   "\"read_timeout_s\":%g,\"request_timeout_s\":%g,\"log_level\":\"%s\",\"drain_delay_s\":%g,"
                   "\"drain_timeout_s\":%g,\"cors_origins\":",
              (unsigned)server_port(srv), cfg.threads, cfg.max_body_bytes, cfg.sweep_max_points, cfg.max_connections,
              cfg.max_connections_per_ip, cfg.connection_timeout, cfg.read_timeout, cfg.request_timeout,
              log_level_name(cfg.log_level), cfg.drain_delay, cfg.drain_timeout);
    sb_json_string(&ex, cfg.cors_origins);
    sb_printf(&ex, ",\"sweep_threads\":%d,\"connection_memory_bytes\":%zu,\"startup_ms\":%.3f", a.sweep_threads,
              cfg.connection_memory, elapsed(&t0) * 1e3);
    log_line(LOG_INFO, "listening", ex.data);
    sb_free(&ex);
    /* What catalog_load left to first use, done here while the workers serve. */
    catalog_warm(cat);

    char extra[400];
    int sig = 0;
    while (!wait_signal(&stop, 86400.0, &sig)) {
    }
    /* Drain: readiness turns 503 at once so that load balancers stop sending;
     * new connections are still served for drain_delay (the balancer needs
     * that long to notice), then refused; in-flight requests get
     * drain_timeout to finish. A second signal skips what is left. Ctrl-C
     * in a terminal has no balancer to wait for: no drain delay then. */
    struct timespec td;
    clock_gettime(CLOCK_MONOTONIC, &td);
    atomic_store(&a.draining, true);
    bool interactive = sig == SIGINT && isatty(STDIN_FILENO);
    double delay = interactive ? 0 : cfg.drain_delay;
    snprintf(extra, sizeof extra,
             "\"signal\":\"%s\",\"drain_delay_s\":%g,\"drain_timeout_s\":%g,\"in_flight\":%ld,\"why\":\"%s\"",
             sig == SIGTERM ? "SIGTERM" : "SIGINT", delay, cfg.drain_timeout,
             metrics_inflight_now(),
             interactive ? "Ctrl-C in a terminal: no drain delay"
                         : "readiness is 503 and new connections are served for the drain delay, so load balancers "
                           "can stop sending; a second signal stops at once");
    log_line(LOG_INFO, "draining", extra);
    int sig2 = 0;
    bool hurry = wait_signal(&stop, delay, &sig2);
    server_quiesce(srv);
    snprintf(extra, sizeof extra, "\"in_flight\":%ld", metrics_inflight_now());
    log_line(LOG_INFO, "refusing new connections", extra);
    struct timespec tq;
    clock_gettime(CLOCK_MONOTONIC, &tq);
    while (!hurry && metrics_inflight_now() > 0 && elapsed(&tq) < cfg.drain_timeout)
        hurry = wait_signal(&stop, 0.01, &sig2);
    long left = metrics_inflight_now();
    if (left > 0) {
        snprintf(extra, sizeof extra, "\"unfinished_requests\":%ld,\"reason\":\"%s\"", left,
                 hurry ? "second stop signal" : "drain timeout");
        log_line(LOG_WARN, "cutting off requests", extra);
    }
    server_stop(srv);
    catalog_watch_stop(watch);
    snprintf(extra, sizeof extra, "\"unfinished_requests\":%ld,\"drain_ms\":%.3f,\"exit_code\":0", left,
             elapsed(&td) * 1e3);
    log_line(LOG_INFO, "stopped", extra); /* after the held request lines */
    app_free(&a);
    catalog_free(cat);
    return 0;
}
