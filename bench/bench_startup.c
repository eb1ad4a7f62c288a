/* bench_startup.c - start-up time to ready, and idle memory, of the daemon.
 *
 *   bench_startup MLSYSD [RUNS] [-- extra daemon flags]
 *
 * Each run: pick a free loopback port, fork + exec MLSYSD --port P --drain-delay 0,
 * and poll 127.0.0.1:P every 100 us with "GET /healthz" until a 200 comes back.
 * "ready" is the time from just before fork() to that 200 (so it includes exec,
 * dynamic linking, catalog load, the openapi parse and the listener). Then the
 * idle RSS (VmRSS of /proc/PID/status) is read twice: at ready, and after 200 ms
 * of idling; then SIGTERM and wait. Prints the median, min and max of RUNS (20)
 * runs as "RESULT key value unit" lines. Only loopback addresses are used. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench/bench_util.h"
#include "proc_status.h"


static int free_port(void)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sa = {.sin_family = AF_INET};
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof sa;
    if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof sa) != 0 ||
        getsockname(fd, (struct sockaddr *)&sa, &len) != 0) {
        perror("bench_startup: free port");
        exit(2);
    }
    close(fd);
    return ntohs(sa.sin_port);
}

/* 1 if GET /healthz answered 200, 0 if not (yet). */
static int probe(int port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0)
        return 0;
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    int ok = 0;
    if (connect(fd, (struct sockaddr *)&sa, sizeof sa) == 0) {
        static const char q[] = "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";
        char buf[64] = {0};
        if (write(fd, q, sizeof q - 1) == (ssize_t)(sizeof q - 1)) {
            ssize_t n = read(fd, buf, sizeof buf - 1);
            ok = n >= 12 && !strncmp(buf + 9, "200", 3);
        }
    }
    close(fd);
    return ok;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s MLSYSD [RUNS] [-- extra daemon flags]\n", argv[0]);
        return 2;
    }
    const char *bin = argv[1];
    int runs = argc > 2 && strcmp(argv[2], "--") ? atoi(argv[2]) : 20;
    if (runs < 1 || runs > 1000)
        runs = 20;
    int extra = 0;
    for (int i = 2; i < argc; i++)
        if (!strcmp(argv[i], "--")) {
            extra = i + 1;
            break;
        }
    double *ready = calloc((size_t)runs, sizeof *ready), *rss0 = calloc((size_t)runs, sizeof *rss0),
           *rss1 = calloc((size_t)runs, sizeof *rss1);
    for (int r = 0; r < runs; r++) {
        int port = free_port();
        char portarg[16];
        snprintf(portarg, sizeof portarg, "%d", port);
        char *args[64];
        int na = 0;
        args[na++] = (char *)bin;
        args[na++] = "--port";
        args[na++] = portarg;
        args[na++] = "--drain-delay";
        args[na++] = "0";
        for (int i = extra; extra && i < argc && na < 62; i++)
            args[na++] = argv[i];
        args[na] = NULL;
        double t0 = now_s();
        pid_t pid = fork();
        if (pid < 0) {
            perror("fork");
            return 2;
        }
        if (pid == 0) {
            int devnull = open("/dev/null", O_WRONLY);
            dup2(devnull, STDOUT_FILENO);
            dup2(devnull, STDERR_FILENO);
            execv(bin, args);
            _exit(127);
        }
        double t = 0;
        for (;;) {
            if (probe(port)) {
                t = now_s() - t0;
                break;
            }
            int st;
            if (waitpid(pid, &st, WNOHANG) == pid) {
                fprintf(stderr, "bench_startup: %s exited before it was ready\n", bin);
                return 1;
            }
            if (now_s() - t0 > 10) {
                fprintf(stderr, "bench_startup: not ready after 10 s\n");
                kill(pid, SIGKILL);
                return 1;
            }
            struct timespec ts = {0, 100000};
            nanosleep(&ts, NULL);
        }
        ready[r] = t * 1e3;
        rss0[r] = (double)proc_status_kib(pid, "VmRSS") / 1024.0;
        struct timespec idle = {0, 200000000};
        nanosleep(&idle, NULL);
        rss1[r] = (double)proc_status_kib(pid, "VmRSS") / 1024.0;
        kill(pid, SIGTERM);
        int st;
        waitpid(pid, &st, 0);
    }
    qsort(ready, (size_t)runs, sizeof *ready, cmp_double);
    qsort(rss0, (size_t)runs, sizeof *rss0, cmp_double);
    qsort(rss1, (size_t)runs, sizeof *rss1, cmp_double);
    printf("RESULT %-26s %.3f ms\n", "ready_median_ms", ready[runs / 2]);
    printf("RESULT %-26s %.3f ms\n", "ready_min_ms", ready[0]);
    printf("RESULT %-26s %.3f ms\n", "ready_max_ms", ready[runs - 1]);
    printf("RESULT %-26s %.2f MiB\n", "rss_at_ready_mib", rss0[runs / 2]);
    printf("RESULT %-26s %.2f MiB\n", "rss_idle_mib", rss1[runs / 2]);
    printf("RESULT %-26s %d runs\n", "startup_runs", runs);
    free(ready);
    free(rss0);
    free(rss1);
    return 0;
}
