/* main.c - mlsysd: configuration, start-up, signals and graceful stop. */
#include <arpa/inet.h>
#include <errno.h>
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
#include "server/http.h"

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

static void sleep_seconds(double s)
{
    if (s <= 0)
        return;
    struct timespec ts = {.tv_sec = (time_t)s, .tv_nsec = (long)((s - (double)(time_t)s) * 1e9)};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

int main(int argc, char **argv)
{
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
    if (cfg.threads == 0) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        cfg.threads = n > 0 ? (int)(n > 64 ? 64 : n) : 2;
    }
    log_set_level(cfg.log_level);
    signal(SIGPIPE, SIG_IGN);

    /* Block the stop signals before any thread starts, then wait for them here. */
    sigset_t stop;
    sigemptyset(&stop);
    sigaddset(&stop, SIGTERM);
    sigaddset(&stop, SIGINT);
    pthread_sigmask(SIG_BLOCK, &stop, NULL);

    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    metrics_init();
    catalog *cat = NULL;
    if (catalog_load(&cat, cfg.catalog_dir[0] ? cfg.catalog_dir : NULL, msg, sizeof msg) != 0) {
        fprintf(stderr, "mlsysd: catalog: %s\n", msg);
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
    atomic_store(&a.ready, true);
    struct timespec t1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    char extra[400];
    snprintf(extra, sizeof extra,
             "\"version\":\"%s\",\"revision\":\"%s\",\"host\":\"%s\",\"port\":%u,\"threads\":%d,"
             "\"startup_ms\":%.3f",
             MLSYSD_VERSION, MLSYSD_GIT_REVISION, cfg.host, (unsigned)server_port(srv), cfg.threads,
             (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6);
    log_line(LOG_INFO, "listening", extra);

    int sig = 0;
    sigwait(&stop, &sig);
    /* Drain: readiness turns 503 at once so load balancers stop sending;
     * new connections are refused after drain_delay; in-flight requests get
     * drain_timeout to finish. */
    atomic_store(&a.draining, true);
    snprintf(extra, sizeof extra, "\"signal\":\"%s\",\"drain_delay_s\":%g,\"drain_timeout_s\":%g",
             sig == SIGTERM ? "SIGTERM" : "SIGINT", cfg.drain_delay, cfg.drain_timeout);
    log_line(LOG_INFO, "draining", extra);
    sleep_seconds(cfg.drain_delay);
    server_quiesce(srv);
    double waited = 0;
    while (metrics_inflight_now() > 0 && waited < cfg.drain_timeout) {
        sleep_seconds(0.02);
        waited += 0.02;
    }
    long left = metrics_inflight_now();
    server_stop(srv);
    snprintf(extra, sizeof extra, "\"unfinished_requests\":%ld", left);
    log_line(LOG_INFO, "stopped", extra);
    app_free(&a);
    catalog_free(cat);
    return 0;
}
