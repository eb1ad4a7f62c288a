/* config.c - see config.h. One table drives defaults, flags, environment
 * variables, validation and --help, so that the four cannot disagree. */
#include "server/config.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "build_info.h"

typedef enum { T_STR, T_INT, T_SIZE, T_LL, T_SECONDS, T_LOGLEVEL, T_ORIGINS, T_FLAG, T_CALIBRATION } opt_type;

typedef struct {
    const char *flag;     /* without "--" */
    const char *env;      /* NULL: an action, not a setting (see --healthcheck) */
    opt_type type;
    size_t offset;
    size_t size;          /* T_STR, T_ORIGINS: buffer size */
    double min, max;
    const char *def;      /* default as text, parsed like any other value; NULL = none */
    const char *metavar;
    const char *help;
} option;

#define OFF(f) offsetof(config, f)
#define SZ(f) sizeof(((config *)0)->f)
static const option OPTIONS[] = {
    {"host", "MLSYSD_HOST", T_STR, OFF(host), SZ(host), 0, 0, "127.0.0.1", "ADDR",
     "address to listen on (an IPv4/IPv6 address or a name; the container image sets 0.0.0.0)"},
    {"port", "MLSYSD_PORT", T_INT, OFF(port), 0, 0, 65535, "8080", "N", "TCP port; 0 picks a free one (logged)"},
    {"threads", "MLSYSD_THREADS", T_INT, OFF(threads), 0, 0, 256, "0", "N",
     "worker threads; 0 = one per CPU this process may use (its CPU affinity and cgroup CPU limit; at most 64)"},
    {"catalog-dir", "MLSYSD_CATALOG_DIR", T_STR, OFF(catalog_dir), SZ(catalog_dir), 0, 0, "", "DIR",
     "directory of *.json catalog files that add or override entries (empty: the embedded catalog only)"},
    {"max-body-bytes", "MLSYSD_MAX_BODY_BYTES", T_SIZE, OFF(max_body_bytes), 0, 64, 1073741824, "1048576", "BYTES",
     "largest request body accepted; a larger one is a 413"},
    {"sweep-max-points", "MLSYSD_SWEEP_MAX_POINTS", T_LL, OFF(sweep_max_points), 0, 1, 1e12, "1000000", "N",
     "most points one sweep may have; more is a 413 that states the cap"},
    {"sweep-threads", "MLSYSD_SWEEP_THREADS", T_INT, OFF(sweep_threads), 0, 0, 256, "0", "N",
     "threads that write one sweep's rows (the worker's own and helpers; the daemon holds at most N - 1 helpers "
     "at a time, shared by concurrent sweeps); 0 = one per CPU this process may use, as --threads; 1 = none"},
    {"batch-max-items", "MLSYSD_BATCH_MAX_ITEMS", T_LL, OFF(batch_max_items), 0, 1, 1e6, "1000", "N",
     "most items one POST /batch may have; more is a 413 that states the cap"},
    {"max-connections", "MLSYSD_MAX_CONNECTIONS", T_INT, OFF(max_connections), 0, 1, 1000000, "1024", "N",
     "concurrent connections in total"},
    {"max-connections-per-ip", "MLSYSD_MAX_CONNECTIONS_PER_IP", T_INT, OFF(max_connections_per_ip), 0, 0, 1000000,
     "0", "N", "concurrent connections from one client address; 0 = no limit"},
    {"connection-memory", "MLSYSD_CONNECTION_MEMORY", T_SIZE, OFF(connection_memory), 0, 36864, 16777216, "40960",
     "BYTES",
     "memory each open connection holds for its request line and headers (headers past it are a 431) and for a "
     "streamed sweep's sends; every request pays to clear it. More makes a sweep on one thread faster, requests "
     "slower"},
    {"connection-timeout", "MLSYSD_CONNECTION_TIMEOUT", T_INT, OFF(connection_timeout), 0, 1, 86400, "30", "SECONDS",
     "a connection idle this long is closed (an idle timeout: each byte received restarts it)"},
    {"read-timeout", "MLSYSD_READ_TIMEOUT", T_SECONDS, OFF(read_timeout), 0, 0.1, 86400, "60", "SECONDS",
     "a client must send a whole request (line, headers, body) within this long of connecting or of its previous "
     "response; a slower one (e.g. one byte per second) is disconnected"},
    {"request-timeout", "MLSYSD_REQUEST_TIMEOUT", T_SECONDS, OFF(request_timeout), 0, 0.001, 86400, "300", "SECONDS",
     "longest a sweep may compute; the rest of its rows are cut off with an error row"},
    {"cors-origins", "MLSYSD_CORS_ORIGINS", T_ORIGINS, OFF(cors_origins), SZ(cors_origins), 0, 0, "", "ORIGINS",
     "comma-separated browser origins allowed by CORS (https://app.example.com), or * for any; empty: CORS off"},
    {"log-level", "MLSYSD_LOG_LEVEL", T_LOGLEVEL, OFF(log_level), 0, 0, 0, "info", "LEVEL",
     "debug, info, warn or error; one JSON line per request is logged at info"},
    {"log-flush-interval", "MLSYSD_LOG_FLUSH_INTERVAL", T_SECONDS, OFF(log_flush_interval), 0, 0, 10, "0.1", "SECONDS",
     "request log lines are written in batches of up to 4 KiB, at most this long after their request (one "
     "write instead of one per request); 0 writes each line at once. Other lines are always written at once"},
    {"drain-delay", "MLSYSD_DRAIN_DELAY", T_SECONDS, OFF(drain_delay), 0, 0, 3600, "5", "SECONDS",
     "after SIGTERM/SIGINT: time /readyz answers 503 while new connections are still served"},
    {"drain-timeout", "MLSYSD_DRAIN_TIMEOUT", T_SECONDS, OFF(drain_timeout), 0, 0, 3600, "20", "SECONDS",
     "then: time in-flight requests get to finish before the process exits"},
    {"calibration", "MLSYSD_CALIBRATION", T_CALIBRATION, OFF(calibration), 0, 0, 0, "mlsysim", "MODE",
     "how a request that names no calibration is answered: mlsysim (mlsysim's first-order model, exactly) or "
     "measured (calibrated to published measurements); a request's \"calibration\" wins"},
    {"no-dashboard", "MLSYSD_NO_DASHBOARD", T_FLAG, OFF(no_dashboard), 0, 0, 0, "0", "[=1|0]",
     "serve no dashboard: GET / answers the JSON index to browsers too and /ui/ is 404 (API-only deployments)"},
    /* No environment variable on purpose: the container's HEALTHCHECK runs the
     * binary with the server's own environment, and a variable that turned
     * every start into a probe would stop the server itself from starting. */
    {"healthcheck", NULL, T_FLAG, OFF(healthcheck), 0, 0, 0, NULL, NULL,
     "probe http://127.0.0.1:PORT/healthz, exit 0 if healthy and 1 if not (for a container HEALTHCHECK)"},
};
#define N_OPTIONS (sizeof OPTIONS / sizeof OPTIONS[0])

const char *log_level_name(log_level l)
{
    static const char *const names[] = {"debug", "info", "warn", "error"};
    return l >= LOG_DEBUG && l <= LOG_ERROR ? names[l] : "info";
}

/* "scheme://host[:port]" exactly as a browser sends it in Origin: no path,
 * no trailing slash. A configured "https://app.example.com/" would never
 * match, and CORS would fail in the browser with no hint on the server side,
 * so such values are refused at start-up instead. */
static bool valid_origin(const char *s, size_t n)
{
    size_t i = 0;
    if (i >= n || !isalpha((unsigned char)s[i]))
        return false;
    while (i < n && (isalnum((unsigned char)s[i]) || s[i] == '+' || s[i] == '-' || s[i] == '.'))
        i++;
    if (n - i < 3 || strncmp(s + i, "://", 3) != 0)
        return false;
    i += 3;
    size_t host = i;
    if (i < n && s[i] == '[') {
        while (i < n && s[i] != ']')
            if (!isxdigit((unsigned char)s[i]) && s[i] != ':' && s[i] != '.' && s[i] != '[')
                return false;
            else
                i++;
        if (i == n)
            return false;
        i++;
    } else {
        while (i < n && (isalnum((unsigned char)s[i]) || s[i] == '-' || s[i] == '.'))
            i++;
    }
    if (i == host)
        return false;
    if (i < n && s[i] == ':') {
        size_t p = ++i;
        while (i < n && isdigit((unsigned char)s[i]))
            i++;
        if (i == p || i - p > 5)
            return false;
    }
    return i == n;
}

bool origin_list_next(const char **cursor, const char **item, size_t *len)
{
    const char *p = *cursor;
    while (*p == ' ' || *p == ',')
        p++;
    if (!*p)
        return false;
    size_t n = strcspn(p, ",");
    size_t m = n;
    while (m && p[m - 1] == ' ')
        m--;
    *item = p;
    *len = m;
    *cursor = p + n;
    return true;
}

static int check_origins(const char *text, const char *src, char *msg, size_t msglen)
{
    if (!strcmp(text, "*") || !*text)
        return 0;
    const char *cursor = text, *p;
    size_t m;
    while (origin_list_next(&cursor, &p, &m)) {
        if (m == 1 && *p == '*') {
            snprintf(msg, msglen, "%s: * allows any origin and must be the whole value, got '%s'", src, text);
            return -1;
        }
        if (m && !valid_origin(p, m)) {
            snprintf(msg, msglen,
                     "%s: '%.*s' is not an origin; write scheme://host[:port] with no path or trailing slash "
                     "(e.g. https://app.example.com), or * for any",
                     src, (int)(m > 200 ? 200 : m), p);
            return -1;
        }
    }
    return 0;
}

/* Numbers are strict: no leading blanks or '+', no trailing text, so that
 * "8080 " or "1e3" in a manifest is an error rather than a surprise. */
static bool plain_number_start(const char *text, bool fraction)
{
    return isdigit((unsigned char)text[0]) || (text[0] == '-' && isdigit((unsigned char)text[1])) ||
           (fraction && text[0] == '.' && isdigit((unsigned char)text[1]));
}

static int set_value(config *c, const option *o, const char *src, const char *text, char *msg, size_t msglen)
{
    char *field = (char *)c + o->offset;
    char *end;
    switch (o->type) {
    case T_STR:
    case T_ORIGINS:
        if (strlen(text) >= o->size) {
            snprintf(msg, msglen, "%s: value is too long (at most %zu characters)", src, o->size - 1);
            return -1;
        }
        if (o->type == T_ORIGINS && check_origins(text, src, msg, msglen) != 0)
            return -1;
        memcpy(field, text, strlen(text) + 1);
        return 0;
    case T_INT:
    case T_SIZE:
    case T_LL: {
        errno = 0;
        long long v = plain_number_start(text, false) ? strtoll(text, &end, 10) : 0;
        if (!plain_number_start(text, false) || *end || errno || v < (long long)o->min || (double)v > o->max) {
            snprintf(msg, msglen, "%s: expected a whole number in [%.0f, %.0f], got '%.100s'", src, o->min, o->max,
                     text);
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
        double v = plain_number_start(text, true) ? strtod(text, &end) : 0;
        if (!plain_number_start(text, true) || *end || errno || !isfinite(v) || v < o->min || v > o->max) {
            snprintf(msg, msglen, "%s: expected seconds in [%g, %g], got '%.100s'", src, o->min, o->max, text);
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
        snprintf(msg, msglen, "%s: expected debug, info, warn or error, got '%.100s'", src, text);
        return -1;
    case T_CALIBRATION: { /* one of CALIBRATION_MODES, any case */
        char list[200] = "";
        size_t used = 0;
        for (int i = 0; CALIBRATION_MODES[i]; i++) {
            if (strcasecmp(text, CALIBRATION_MODES[i]) == 0) {
                *(calibration_mode *)field = (calibration_mode)i;
                return 0;
            }
            if (used < sizeof list)
                used += (size_t)snprintf(list + used, sizeof list - used, "%s%s",
                                         !i ? "" : CALIBRATION_MODES[i + 1] ? ", " : " or ", CALIBRATION_MODES[i]);
        }
        snprintf(msg, msglen, "%s: expected %s, got '%.100s'", src, list, text);
        return -1;
    }
    case T_FLAG: /* "1" from the command line; a variable says 1/0, true/false, yes/no */
        if (!strcmp(text, "1") || !strcasecmp(text, "true") || !strcasecmp(text, "yes")) {
            *(bool *)field = true;
            return 0;
        }
        if (!strcmp(text, "0") || !strcasecmp(text, "false") || !strcasecmp(text, "no")) {
            *(bool *)field = false;
            return 0;
        }
        snprintf(msg, msglen, "%s: expected 1/0, true/false or yes/no, got '%.100s'", src, text);
        return -1;
    }
    return -1;
}

void config_defaults(config *c)
{
    memset(c, 0, sizeof *c);
    char msg[256];
    for (size_t i = 0; i < N_OPTIONS; i++)
        if (OPTIONS[i].def && set_value(c, &OPTIONS[i], "default", OPTIONS[i].def, msg, sizeof msg) != 0)
            abort(); /* a bad default in the table is a programming error */
}

void config_write_help(FILE *f, const char *prog)
{
    fprintf(f, "mlsysd %s - ML-systems capacity answers over HTTP (the MLSys-im solvers, in C)\n\n", MLSYSD_VERSION);
    fprintf(f, "Usage: %s [options]\n\n", prog);
    fprintf(f, "Every setting comes from its flag (--name VALUE or --name=VALUE) or from its environment\n"
               "variable; the flag wins, and an empty variable counts as unset. An invalid value stops\n"
               "start-up with exit code 2 and a message that names the setting.\n\nSettings:\n");
    for (size_t i = 0; i < N_OPTIONS; i++) {
        const option *o = &OPTIONS[i];
        if (!o->env)
            continue;
        fprintf(f, "  --%s %s\n      env %s, default %s%s%s\n      %s\n", o->flag, o->metavar, o->env,
                *o->def ? "" : "'", *o->def ? o->def : "", *o->def ? "" : "' (empty)", o->help);
    }
    fprintf(f, "\nActions:\n");
    for (size_t i = 0; i < N_OPTIONS; i++)
        if (!OPTIONS[i].env)
            fprintf(f, "  --%-14s %s\n", OPTIONS[i].flag, OPTIONS[i].help);
    fprintf(f, "  --%-14s %s\n  --%-14s %s\n", "help", "print this text and exit", "version",
            "print the version and git revision and exit");
    fprintf(f, "\nSignals: SIGTERM or SIGINT drain and stop (exit 0); a second one stops at once.\n");
    fprintf(f, "Endpoints: /solve /sweep /optimize /solvers /catalog /healthz /livez /readyz /metrics /version\n"
               "           /openapi.yaml /openapi.json (the full contract)\n");
    fprintf(f, "\nBatch commands, no server: %s sweep|solve|optimize [--help] < request.json\n", prog);
}

void config_print_help(const char *prog) { config_write_help(stdout, prog); }

static const option *find_flag(const char *name, size_t nlen)
{
    for (size_t i = 0; i < N_OPTIONS; i++)
        if (strlen(OPTIONS[i].flag) == nlen && !strncmp(OPTIONS[i].flag, name, nlen))
            return &OPTIONS[i];
    return NULL;
}

config_result config_parse(config *c, int argc, char **argv, char *msg, size_t msglen)
{
    /* --help and --version work even when the environment holds a bad value. */
    for (int a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "--help") || !strcmp(argv[a], "-h")) {
            config_print_help(argv[0]);
            return CONFIG_EXIT_OK;
        }
        if (!strcmp(argv[a], "--version")) {
            printf("mlsysd %s (%s)\n", MLSYSD_VERSION, MLSYSD_GIT_REVISION);
            return CONFIG_EXIT_OK;
        }
    }
    for (size_t i = 0; i < N_OPTIONS; i++) {
        const char *v = OPTIONS[i].env ? getenv(OPTIONS[i].env) : NULL;
        if (v && *v && set_value(c, &OPTIONS[i], OPTIONS[i].env, v, msg, msglen) != 0)
            return CONFIG_EXIT_USAGE;
    }
    for (int a = 1; a < argc; a++) {
        const char *arg = argv[a];
        if (strncmp(arg, "--", 2) != 0 || !arg[2]) {
            snprintf(msg, msglen, "unexpected argument '%.100s' (see --help)", arg);
            return CONFIG_EXIT_USAGE;
        }
        const char *name = arg + 2;
        const char *eq = strchr(name, '=');
        size_t nlen = eq ? (size_t)(eq - name) : strlen(name);
        const option *o = find_flag(name, nlen);
        if (!o) {
            snprintf(msg, msglen, "unknown option '%.100s' (see --help)", arg);
            return CONFIG_EXIT_USAGE;
        }
        const char *val;
        if (o->type == T_FLAG) {
            if (eq && o->env) { /* a flag that is also a setting takes the variable's values */
                val = eq + 1;
            } else if (eq) {
                snprintf(msg, msglen, "--%s takes no value", o->flag);
                return CONFIG_EXIT_USAGE;
            } else {
                val = "1";
            }
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
