/* config.c - see config.h. One table drives flags, env vars and --help. */
#include "server/config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "build_info.h"

typedef enum { T_STR, T_INT, T_SIZE, T_LL, T_SECONDS, T_LOGLEVEL, T_FLAG } opt_type;

typedef struct {
    const char *flag;   /* without "--" */
    const char *env;
    opt_type type;
    size_t offset;
    size_t size;        /* T_STR: buffer size */
    double min, max;
    const char *help;
} option;

#define OFF(f) offsetof(config, f)
static const option OPTIONS[] = {
    {"host", "MLSYSD_HOST", T_STR, OFF(host), sizeof(((config *)0)->host), 0, 0,
     "address to listen on (default 127.0.0.1; 0.0.0.0 in the container)"},
    {"port", "MLSYSD_PORT", T_INT, OFF(port), 0, 0, 65535, "TCP port (default 8080; 0 picks a free one)"},
    {"threads", "MLSYSD_THREADS", T_INT, OFF(threads), 0, 1, 256, "worker threads (default: number of CPUs)"},
    {"catalog-dir", "MLSYSD_CATALOG_DIR", T_STR, OFF(catalog_dir), sizeof(((config *)0)->catalog_dir), 0, 0,
     "directory of *.json catalog files that add or override entries (default: none)"},
    {"max-body-bytes", "MLSYSD_MAX_BODY_BYTES", T_SIZE, OFF(max_body_bytes), 0, 64, 1073741824,
     "largest request body accepted, else 413 (default 1048576)"},
    {"sweep-max-points", "MLSYSD_SWEEP_MAX_POINTS", T_LL, OFF(sweep_max_points), 0, 1, 1e12,
     "most points one sweep may have, else 413 (default 1000000)"},
    {"max-connections", "MLSYSD_MAX_CONNECTIONS", T_INT, OFF(max_connections), 0, 1, 1000000,
     "concurrent connections in total (default 1024)"},
    {"max-connections-per-ip", "MLSYSD_MAX_CONNECTIONS_PER_IP", T_INT, OFF(max_connections_per_ip), 0, 0, 1000000,
     "concurrent connections from one address, 0 = no limit (default 0)"},
    {"connection-timeout", "MLSYSD_CONNECTION_TIMEOUT", T_INT, OFF(connection_timeout), 0, 1, 86400,
     "seconds a connection may stay idle or trickle bytes before it is closed (default 30)"},
    {"request-timeout", "MLSYSD_REQUEST_TIMEOUT", T_SECONDS, OFF(request_timeout), 0, 0.001, 86400,
     "seconds a sweep may compute before it is cut off (default 300)"},
    {"cors-origins", "MLSYSD_CORS_ORIGINS", T_STR, OFF(cors_origins), sizeof(((config *)0)->cors_origins), 0, 0,
     "comma-separated origins allowed by CORS, or * (default: none)"},
    {"log-level", "MLSYSD_LOG_LEVEL", T_LOGLEVEL, OFF(log_level), 0, 0, 0,
     "debug, info, warn or error (default info; request lines are info)"},
    {"drain-delay", "MLSYSD_DRAIN_DELAY", T_SECONDS, OFF(drain_delay), 0, 0, 3600,
     "seconds between SIGTERM (readiness 503) and refusing new connections (default 5)"},
    {"drain-timeout", "MLSYSD_DRAIN_TIMEOUT", T_SECONDS, OFF(drain_timeout), 0, 0, 3600,
     "seconds in-flight requests get to finish after that (default 20)"},
    {"healthcheck", NULL, T_FLAG, OFF(healthcheck), 0, 0, 0,
     "probe http://127.0.0.1:PORT/healthz and exit 0 if healthy, 1 if not (for container HEALTHCHECK)"},
};
#define N_OPTIONS (sizeof OPTIONS / sizeof OPTIONS[0])

const char *log_level_name(log_level l)
{
    static const char *const names[] = {"debug", "info", "warn", "error"};
    return names[l];
}

void config_defaults(config *c)
{
    memset(c, 0, sizeof *c);
    snprintf(c->host, sizeof c->host, "127.0.0.1");
    c->port = 8080;
    c->threads = 0; /* resolved to the CPU count at start-up */
    c->max_body_bytes = 1048576;
    c->sweep_max_points = 1000000;
    c->max_connections = 1024;
    c->max_connections_per_ip = 0;
    c->connection_timeout = 30;
    c->request_timeout = 300;
    c->log_level = LOG_INFO;
    c->drain_delay = 5;
    c->drain_timeout = 20;
}

static int set_value(config *c, const option *o, const char *src, const char *text, char *msg, size_t msglen)
{
    char *field = (char *)c + o->offset;
    char *end;
    switch (o->type) {
    case T_STR:
        if (strlen(text) >= o->size) {
            snprintf(msg, msglen, "%s: value is too long (at most %zu characters)", src, o->size - 1);
            return -1;
        }
        memcpy(field, text, strlen(text) + 1);
        return 0;
    case T_INT:
    case T_SIZE:
    case T_LL: {
        errno = 0;
        long long v = strtoll(text, &end, 10);
        if (!*text || *end || errno || v < (long long)o->min || (double)v > o->max) {
            snprintf(msg, msglen, "%s: expected a whole number in [%.0f, %.0f], got '%s'", src, o->min, o->max, text);
            return -1;
        }
        if (o->type == T_INT)
            *(int *)field = (int)v;
        else if (o->type == T_SIZE)
            *(size_t *)field = (size_t)v;
        else
            *(long long *)field = v;
        return 0;
    }
    case T_SECONDS: {
        errno = 0;
        double v = strtod(text, &end);
        if (!*text || *end || errno || !isfinite(v) || v < o->min || v > o->max) {
            snprintf(msg, msglen, "%s: expected seconds in [%g, %g], got '%s'", src, o->min, o->max, text);
            return -1;
        }
        *(double *)field = v;
        return 0;
    }
    case T_LOGLEVEL:
        for (int l = LOG_DEBUG; l <= LOG_ERROR; l++) {
            if (strcasecmp(text, log_level_name((log_level)l)) == 0) {
                *(log_level *)field = (log_level)l;
                return 0;
            }
        }
        snprintf(msg, msglen, "%s: expected debug, info, warn or error, got '%s'", src, text);
        return -1;
    case T_FLAG:
        *(bool *)field = true;
        return 0;
    }
    return -1;
}

void config_print_help(const char *prog)
{
    printf("mlsysd %s - ML-systems capacity answers over HTTP (the MLSys-im solvers, in C)\n\n", MLSYSD_VERSION);
    printf("Usage: %s [options]\n\nEvery option can also be set from its environment variable; a flag wins.\n\n",
           prog);
    for (size_t i = 0; i < N_OPTIONS; i++) {
        const option *o = &OPTIONS[i];
        char left[64];
        snprintf(left, sizeof left, "--%s%s", o->flag, o->type == T_FLAG ? "" : " VALUE");
        printf("  %-34s %s\n", left, o->help);
        if (o->env)
            printf("  %-34s   env: %s\n", "", o->env);
    }
    printf("  %-34s %s\n  %-34s %s\n", "--help", "this text", "--version", "print the version and exit");
    printf("\nEndpoints: /solve /sweep /solvers /catalog /healthz /livez /readyz /metrics /version /openapi.yaml\n");
}

config_result config_parse(config *c, int argc, char **argv, char *msg, size_t msglen)
{
    for (size_t i = 0; i < N_OPTIONS; i++) {
        const char *v = OPTIONS[i].env ? getenv(OPTIONS[i].env) : NULL;
        if (v && *v && set_value(c, &OPTIONS[i], OPTIONS[i].env, v, msg, msglen) != 0)
            return CONFIG_EXIT_USAGE;
    }
    for (int a = 1; a < argc; a++) {
        const char *arg = argv[a];
        if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) {
            config_print_help(argv[0]);
            return CONFIG_EXIT_OK;
        }
        if (!strcmp(arg, "--version")) {
            printf("mlsysd %s (%s)\n", MLSYSD_VERSION, MLSYSD_GIT_REVISION);
            return CONFIG_EXIT_OK;
        }
        if (strncmp(arg, "--", 2) != 0) {
            snprintf(msg, msglen, "unexpected argument '%s' (see --help)", arg);
            return CONFIG_EXIT_USAGE;
        }
        const char *name = arg + 2;
        const char *eq = strchr(name, '=');
        size_t nlen = eq ? (size_t)(eq - name) : strlen(name);
        const option *o = NULL;
        for (size_t i = 0; i < N_OPTIONS; i++)
            if (strlen(OPTIONS[i].flag) == nlen && !strncmp(OPTIONS[i].flag, name, nlen))
                o = &OPTIONS[i];
        if (!o) {
            snprintf(msg, msglen, "unknown option '%s' (see --help)", arg);
            return CONFIG_EXIT_USAGE;
        }
        const char *val;
        if (o->type == T_FLAG) {
            val = "1";
        } else if (eq) {
            val = eq + 1;
        } else if (a + 1 < argc) {
            val = argv[++a];
        } else {
            snprintf(msg, msglen, "--%s needs a value (see --help)", o->flag);
            return CONFIG_EXIT_USAGE;
        }
        char src[80];
        snprintf(src, sizeof src, "--%s", o->flag);
        if (set_value(c, o, src, val, msg, msglen) != 0)
            return CONFIG_EXIT_USAGE;
    }
    return CONFIG_RUN;
}
