/* cli.c - `mlsysd sweep|solve [options] < request.json`: one request computed
 * without a server. The body is read whole (up to --max-body-bytes), handed
 * to app_handle as POST /sweep, /solve or /optimize (whose handlers read its
 * envelope, "calibration" included, through front.h), and the answer (a body or a
 * sweep's stream) is written to stdout or, atomically, to --out. A problem
 * goes to stderr as one line with its detail and field.
 *
 * What differs from the daemon, on purpose: no point cap and no request
 * timeout (a batch run is bounded by its scheduler, e.g. a Job's
 * activeDeadlineSeconds), and no socket. Settings otherwise come from the
 * same MLSYSD_* environment (catalog directory, body size limit). */
#include "server/cli.h"

#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "server/app.h"
#include "server/front.h"
#include "server/metrics.h"
#include "server/plan_cli.h"
#include "server/reply.h"

typedef struct {
    const char *name;
    const char *path;     /* the endpoint the body is POSTed to */
    bool sweep_options;   /* takes --shard, --format, --index */
    int (*run)(int argc, char **argv); /* a command of its own (plan_cli.h): it takes argv whole */
} command;

static const command COMMANDS[] = {
    {"sweep", "/sweep", true, NULL},
    {"solve", "/solve", false, NULL},
    {"optimize", "/optimize", false, NULL},
    {"eval", "/evaluate", false, plan_cli_eval},
    {"schema", NULL, false, plan_cli_schema},
};

typedef struct {
    const command *cmd;
    const char *in, *out, *shard, *format, *catalog_dir, *calibration;
    bool index;
} cli_args;

static const command *find_command(const char *name)
{
    for (size_t i = 0; i < sizeof COMMANDS / sizeof COMMANDS[0]; i++)
        if (!strcmp(COMMANDS[i].name, name))
            return &COMMANDS[i];
    return NULL;
}

bool cli_is_command(const char *arg) { return find_command(arg) != NULL; }

static void usage(FILE *f, const command *c)
{
    fprintf(f,
            "Usage: mlsysd %s [options] < request.json > answer\n\n"
            "Computes one POST %s request without a server: the same body, validation, formats and\n"
            "errors as over HTTP (GET /openapi.yaml). Exit code 0 done, 2 bad input or usage (the\n"
            "problem's detail on stderr), 1 any other failure. No point cap and no timeout.\n\n"
            "Options:\n"
            "  --in FILE           read the request from FILE (default: standard input)\n"
            "  --out FILE          write the answer to FILE, atomically (a temporary file renamed when\n"
            "                      complete; missing directories are created); default: standard output\n",
            c->name, c->path);
    if (c->sweep_options)
        fprintf(f, "  --shard I/N         compute shard I of N (counting from 0); sets the body's shard\n"
                   "  --format F          json, csv or ndjson; sets the body's format\n"
                   "  --index             rows start with the point's global index; sets the body's index\n");
    fprintf(f, "  --catalog-dir DIR   extra catalog files (env MLSYSD_CATALOG_DIR)\n"
               "  --calibration MODE  mlsysim or measured: for a request that names no calibration\n"
               "                      (env MLSYSD_CALIBRATION, default mlsysim); the body's wins\n"
               "  --help              print this text\n");
}

static int parse_args(int argc, char **argv, cli_args *a)
{
    memset(a, 0, sizeof *a);
    a->cmd = find_command(argv[0]);
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) {
            usage(stdout, a->cmd);
            return 0;
        }
        if (!strcmp(arg, "--index") && a->cmd->sweep_options) {
            a->index = true;
            continue;
        }
        static const char *const valued[] = {"--in", "--out", "--shard", "--format", "--catalog-dir", "--calibration"};
        const char **dest[] = {&a->in, &a->out, &a->shard, &a->format, &a->catalog_dir, &a->calibration};
        size_t k = 0, n = sizeof valued / sizeof valued[0];
        size_t len = strcspn(arg, "=");
        while (k < n && (strlen(valued[k]) != len || strncmp(arg, valued[k], len)))
            k++;
        bool sweep_only = k == 2 || k == 3;
        if (k == n || (sweep_only && !a->cmd->sweep_options)) {
            fprintf(stderr, "mlsysd %s: unknown option '%.100s' (see mlsysd %s --help)\n", a->cmd->name, arg,
                    a->cmd->name);
            return -1;
        }
        if (arg[len] == '=') {
            *dest[k] = arg + len + 1;
        } else if (i + 1 < argc) {
            *dest[k] = argv[++i];
        } else {
            fprintf(stderr, "mlsysd %s: %s needs a value\n", a->cmd->name, valued[k]);
            return -1;
        }
    }
    return 1;
}

/* The whole request, at most max bytes. NULL with a message on failure. */
static char *read_all(FILE *f, size_t max, size_t *len, const char *cmd)
{
    size_t cap = 65536, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        if (n == cap) {
            char *nb = cap > max ? NULL : realloc(buf, cap * 2);
            if (!nb)
                break;
            buf = nb;
            cap *= 2;
        }
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (n > max) {
            fprintf(stderr, "mlsysd %s: the request is over %zu bytes (--max-body-bytes / MLSYSD_MAX_BODY_BYTES)\n",
                    cmd, max);
            free(buf);
            return NULL;
        }
        if (got == 0) {
            if (ferror(f)) {
                fprintf(stderr, "mlsysd %s: reading the request: %s\n", cmd, strerror(errno));
                free(buf);
                return NULL;
            }
            *len = n;
            return buf;
        }
    }
    free(buf);
    fprintf(stderr, "mlsysd %s: out of memory reading the request\n", cmd);
    return NULL;
}

/* --shard, --format and --index set their members of the body. A body that
 * is not a JSON object stays as it is, for the endpoint to refuse by its rules. */
static char *apply_options(const cli_args *a, char *body, size_t *len)
{
    if (!a->shard && !a->format && !a->index)
        return body;
    json_error_t jerr;
    json_t *o = json_loadb(body, *len, JSON_REJECT_DUPLICATES, &jerr);
    if (!json_is_object(o)) {
        json_decref(o);
        return body;
    }
    if (a->shard)
        json_object_set_new(o, "shard", json_string(a->shard));
    if (a->format)
        json_object_set_new(o, "format", json_string(a->format));
    if (a->index)
        json_object_set_new(o, "index", json_true());
    char *out = json_dumps(o, JSON_COMPACT);
    json_decref(o);
    if (!out)
        return body;
    free(body);
    *len = strlen(out);
    return out;
}

/* mkdir -p of the directory part of path. */
static int make_parents(const char *path)
{
    char dir[PATH_MAX];
    if (snprintf(dir, sizeof dir, "%s", path) >= (int)sizeof dir)
        return -1;
    for (char *p = dir + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(dir, 0777) != 0 && errno != EEXIST)
            return -1;
        *p = '/';
    }
    return 0;
}

/* Writes the answer to f: the body, or the sweep's stream to its end. */
static int write_answer(app_response *resp, FILE *f)
{
    if (!resp->stream.ctx)
        return fwrite(resp->body.data, 1, resp->body.len, f) == resp->body.len ? 0 : -1;
    static char chunk[65536];
    for (;;) {
        size_t n = resp->stream.read(resp->stream.ctx, chunk, sizeof chunk);
        if (n == STREAM_FAILED) {
            errno = ENOMEM;
            return -1;
        }
        if (n == 0)
            return 0;
        if (fwrite(chunk, 1, n, f) != n)
            return -1;
    }
}

static int emit(const cli_args *a, app_response *resp)
{
    const char *cmd = a->cmd->name;
    if (!a->out) {
        if (write_answer(resp, stdout) != 0 || fflush(stdout) != 0) {
            fprintf(stderr, "mlsysd %s: writing the answer: %s\n", cmd, strerror(errno));
            return 1;
        }
        return 0;
    }
    char tmp[PATH_MAX];
    if (snprintf(tmp, sizeof tmp, "%s.tmp.%ld", a->out, (long)getpid()) >= (int)sizeof tmp) {
        fprintf(stderr, "mlsysd %s: --out path too long\n", cmd);
        return 2;
    }
    FILE *f = make_parents(a->out) == 0 ? fopen(tmp, "wb") : NULL;
    if (!f) {
        fprintf(stderr, "mlsysd %s: cannot create %s: %s\n", cmd, tmp, strerror(errno));
        return 1;
    }
    int rc = write_answer(resp, f);
    if (rc == 0 && (fflush(f) != 0 || fsync(fileno(f)) != 0))
        rc = -1;
    int saved = errno;
    if (fclose(f) != 0 && rc == 0) {
        rc = -1;
        saved = errno;
    }
    if (rc == 0 && rename(tmp, a->out) != 0) {
        rc = -1;
        saved = errno;
    }
    if (rc != 0) {
        unlink(tmp);
        fprintf(stderr, "mlsysd %s: writing %s: %s\n", cmd, a->out, strerror(saved));
        return 1;
    }
    return 0;
}

/* A problem as one line: "mlsysd sweep: <detail> (field shard, 400 invalid-input)". */
static int report_problem(const char *cmd, const app_response *resp)
{
    json_t *p = json_loadb(resp->body.data, resp->body.len, 0, NULL);
    const char *detail = json_string_value(json_object_get(p, "detail"));
    const char *field = json_string_value(json_object_get(p, "field"));
    const char *type = json_string_value(json_object_get(p, "type"));
    const char *slug = type && strrchr(type, '/') ? strrchr(type, '/') + 1 : "error";
    fprintf(stderr, "mlsysd %s: %s (", cmd, detail ? detail : "error");
    if (field && *field)
        fprintf(stderr, "field %s, ", field);
    fprintf(stderr, "%d %s)\n", resp->status, slug);
    json_decref(p);
    return resp->status >= 400 && resp->status < 500 ? 2 : 1;
}

int cli_main(int argc, char **argv)
{
    const command *own = find_command(argv[0]);
    if (own && own->run)
        return own->run(argc, argv);
    cli_args a;
    int rc = parse_args(argc, argv, &a);
    if (rc <= 0)
        return rc < 0 ? 2 : 0;
    const char *cmd = a.cmd->name;
    config cfg;
    config_defaults(&cfg);
    char *env_argv[] = {argv[0], NULL};
    char msg[600];
    if (config_parse(&cfg, 1, env_argv, msg, sizeof msg) != CONFIG_RUN) {
        fprintf(stderr, "mlsysd %s: %s\n", cmd, msg);
        return 2;
    }
    if (a.catalog_dir)
        snprintf(cfg.catalog_dir, sizeof cfg.catalog_dir, "%s", a.catalog_dir);
    if (a.calibration && calibration_from_text(a.calibration, &cfg.calibration) != 0) {
        api_error err;
        calibration_fail(&err, a.calibration);
        fprintf(stderr, "mlsysd %s: --calibration: %s\n", cmd, err.detail);
        return 2;
    }
    cfg.sweep_max_points = LLONG_MAX;
    cfg.request_timeout = INFINITY;

    FILE *in = a.in ? fopen(a.in, "rb") : stdin;
    if (!in) {
        fprintf(stderr, "mlsysd %s: cannot open %s: %s\n", cmd, a.in, strerror(errno));
        return 2;
    }
    size_t len = 0;
    char *body = read_all(in, cfg.max_body_bytes, &len, cmd);
    if (in != stdin)
        fclose(in);
    if (!body)
        return 2;
    body = apply_options(&a, body, &len);

    metrics_init();
    catalog *cat = NULL;
    if (catalog_load(&cat, cfg.catalog_dir[0] ? cfg.catalog_dir : NULL, msg, sizeof msg) != 0) {
        fprintf(stderr, "mlsysd %s: catalog: %s\n", cmd, msg);
        free(body);
        return 1;
    }
    app ap;
    if (app_init(&ap, cat, &cfg, msg, sizeof msg) != 0) {
        fprintf(stderr, "mlsysd %s: %s\n", cmd, msg);
        catalog_free(cat);
        free(body);
        return 1;
    }
    app_request req = {.method = "POST", .path = a.cmd->path, .body = body, .body_len = len,
                       .content_type = "application/json"};
    app_response resp = {0};
    sb_init(&resp.body);
    app_handle(&ap, &req, &resp);
    rc = resp.status == 200 ? emit(&a, &resp) : report_problem(cmd, &resp);
    app_response_free(&resp);
    app_free(&ap);
    catalog_free(cat);
    free(body);
    return rc;
}
