/* plan_cli.c - `mlsysd eval PLAN` and `mlsysd schema` (contract in plan_cli.h).
 *
 * eval reads the plan (a file, or - for standard input), hands it to
 * app_handle as POST /evaluate (YAML unless the file name ends in .json),
 * so the validation and the numbers are the service's, and writes the
 * evaluation as a table (--format table, default) or the service's JSON
 * (--format json) on stdout, and JUnit XML to --junit FILE. Exit codes are
 * mlsysim's: 0 every assertion holds, 1 the plan is invalid (the problem on
 * stderr with its field) or the command failed, 2 a scenario is infeasible,
 * 3 an assertion failed. Settings come from the same MLSYSD_* environment as
 * the daemon; --calibration and --catalog-dir as in cli.c. */
#include "server/plan_cli.h"

#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/app.h"
#include "server/front.h"
#include "server/jsonw.h"
#include "server/metrics.h"
#include "server/plan.h"
#include "server/plan_report.h"
#include "server/reply.h"

enum { EXIT_INVALID = 1 };

static void eval_usage(FILE *f)
{
    fputs("Usage: mlsysd eval PLAN [options]\n\n"
          "Evaluates a capacity plan (YAML or JSON; - reads standard input) without a server: the same\n"
          "validation and numbers as POST /evaluate. A plan is mlsysd's (version, name, defaults,\n"
          "scenarios with assert) or mlsysim's mlsys.yaml (workload, hardware, ops, constraints.assert).\n"
          "`mlsysd schema` prints its JSON Schema.\n\n"
          "Exit code: 0 every assertion holds, 1 the plan is invalid (or the command failed),\n"
          "2 a scenario is infeasible, 3 an assertion failed.\n\n"
          "Options:\n"
          "  --format F          table (default) or json (the POST /evaluate answer)\n"
          "  --junit FILE        also write JUnit XML: one test case per assertion\n"
          "  --catalog-dir DIR   extra catalog files (env MLSYSD_CATALOG_DIR)\n"
          "  --calibration MODE  mlsysim or measured: for a plan that names no calibration\n"
          "                      (env MLSYSD_CALIBRATION, default mlsysim); the plan's wins\n"
          "  --help              print this text\n",
          f);
}

typedef struct {
    const char *plan, *format, *junit, *catalog_dir, *calibration;
} eval_args;

static int parse_eval_args(int argc, char **argv, eval_args *a)
{
    memset(a, 0, sizeof *a);
    a->format = "table";
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) {
            eval_usage(stdout);
            return 0;
        }
        static const char *const valued[] = {"--format", "--junit", "--catalog-dir", "--calibration"};
        const char **dest[] = {&a->format, &a->junit, &a->catalog_dir, &a->calibration};
        size_t len = strcspn(arg, "="), k = 0, n = sizeof valued / sizeof valued[0];
        if (arg[0] != '-' || !strcmp(arg, "-")) {
            if (a->plan) {
                fprintf(stderr, "mlsysd eval: one plan at a time (got '%.100s' and '%.100s')\n", a->plan, arg);
                return -1;
            }
            a->plan = arg;
            continue;
        }
        while (k < n && (strlen(valued[k]) != len || strncmp(arg, valued[k], len)))
            k++;
        if (k == n) {
            fprintf(stderr, "mlsysd eval: unknown option '%.100s' (see mlsysd eval --help)\n", arg);
            return -1;
        }
        if (arg[len] == '=') {
            *dest[k] = arg + len + 1;
        } else if (i + 1 < argc) {
            *dest[k] = argv[++i];
        } else {
            fprintf(stderr, "mlsysd eval: %s needs a value\n", valued[k]);
            return -1;
        }
    }
    if (!a->plan) {
        fprintf(stderr, "mlsysd eval: name a plan file (see mlsysd eval --help)\n");
        return -1;
    }
    if (strcmp(a->format, "table") && strcmp(a->format, "json")) {
        fprintf(stderr, "mlsysd eval: --format is table or json, got '%.60s'\n", a->format);
        return -1;
    }
    return 1;
}

static char *slurp(const char *path, size_t *len)
{
    FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
    if (!f)
        return NULL;
    size_t cap = 65536, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        if (n == cap) {
            char *nb = cap > (64u << 20) ? NULL : realloc(buf, cap * 2);
            if (!nb) {
                free(buf);
                buf = NULL;
                errno = EFBIG;
                break;
            }
            buf = nb;
            cap *= 2;
        }
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0) {
            if (ferror(f)) {
                free(buf);
                buf = NULL;
            }
            break;
        }
    }
    if (f != stdin)
        fclose(f);
    *len = n;
    return buf;
}

/* The app as cli.c builds it (settings from the environment), for one request. */
typedef struct {
    config cfg;
    catalog *cat;
    app ap;
} local_app;

static int local_app_init(local_app *l, const char *cmd, const char *catalog_dir, const char *calibration)
{
    config_defaults(&l->cfg);
    char *env_argv[] = {(char *)cmd, NULL};
    char msg[600];
    if (config_parse(&l->cfg, 1, env_argv, msg, sizeof msg) != CONFIG_RUN) {
        fprintf(stderr, "mlsysd %s: %s\n", cmd, msg);
        return -1;
    }
    if (catalog_dir)
        snprintf(l->cfg.catalog_dir, sizeof l->cfg.catalog_dir, "%s", catalog_dir);
    if (calibration && calibration_from_text(calibration, &l->cfg.calibration) != 0) {
        api_error err;
        calibration_fail(&err, calibration);
        fprintf(stderr, "mlsysd %s: --calibration: %s\n", cmd, err.detail);
        return -1;
    }
    l->cfg.request_timeout = INFINITY; /* no timeout and no point cap, as cli.c */
    l->cfg.sweep_max_points = LLONG_MAX;
    metrics_init();
    if (catalog_load(&l->cat, l->cfg.catalog_dir[0] ? l->cfg.catalog_dir : NULL, msg, sizeof msg) != 0) {
        fprintf(stderr, "mlsysd %s: catalog: %s\n", cmd, msg);
        return -1;
    }
    if (app_init(&l->ap, l->cat, &l->cfg, msg, sizeof msg) != 0) {
        fprintf(stderr, "mlsysd %s: %s\n", cmd, msg);
        catalog_free(l->cat);
        return -1;
    }
    return 0;
}

static void local_app_free(local_app *l)
{
    app_free(&l->ap);
    catalog_free(l->cat);
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && !strcmp(s + n - m, suffix);
}

int plan_cli_eval(int argc, char **argv)
{
    eval_args a;
    int rc = parse_eval_args(argc, argv, &a);
    if (rc <= 0)
        return rc < 0 ? EXIT_INVALID : 0;
    size_t len = 0;
    char *text = slurp(a.plan, &len);
    if (!text) {
        fprintf(stderr, "mlsysd eval: cannot read %s: %s\n", a.plan, strerror(errno));
        return EXIT_INVALID;
    }
    local_app l;
    if (local_app_init(&l, "eval", a.catalog_dir, a.calibration) != 0) {
        free(text);
        return EXIT_INVALID;
    }
    app_request req = {.method = "POST", .path = "/evaluate", .body = text, .body_len = len,
                       .content_type = ends_with(a.plan, ".json") ? "application/json" : "application/yaml"};
    app_response resp = {0};
    sb_init(&resp.body);
    app_handle(&l.ap, &req, &resp);
    json_t *answer = json_loadb(resp.body.data, resp.body.len, 0, NULL);
    if (resp.status != 200 || !answer) {
        const char *detail = json_string_value(json_object_get(answer, "detail"));
        const char *field = json_string_value(json_object_get(answer, "field"));
        fprintf(stderr, "mlsysd eval: %s: invalid plan: %s", a.plan, detail ? detail : "no answer");
        if (field && *field)
            fprintf(stderr, " (field %s)", field);
        fprintf(stderr, " [%d]\n", resp.status);
        rc = EXIT_INVALID;
    } else {
        if (!strcmp(a.format, "json")) {
            fwrite(resp.body.data, 1, resp.body.len, stdout);
        } else {
            plan_report_table(answer, stdout);
        }
        rc = (int)json_integer_value(json_object_get(answer, "exit_code"));
        if (a.junit) {
            FILE *f = fopen(a.junit, "w");
            if (!f || plan_report_junit(answer, f) != 0 || fclose(f) != 0) {
                fprintf(stderr, "mlsysd eval: writing %s: %s\n", a.junit, strerror(errno));
                rc = EXIT_INVALID;
            }
        }
        if (fflush(stdout) != 0)
            rc = EXIT_INVALID;
    }
    json_decref(answer);
    app_response_free(&resp);
    local_app_free(&l);
    free(text);
    return rc;
}

int plan_cli_schema(int argc, char **argv)
{
    if (argc > 1) {
        bool help = !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h");
        fprintf(help ? stdout : stderr,
                "Usage: mlsysd schema\n\nPrints the JSON Schema of a plan (`mlsysd eval`, POST /evaluate); the "
                "daemon serves it\nat GET /schemas/plan.json.\n");
        return help ? 0 : EXIT_INVALID;
    }
    local_app l;
    if (local_app_init(&l, "schema", NULL, NULL) != 0)
        return EXIT_INVALID;
    json_t *s = plan_schema(&l.ap);
    int rc = 0;
    if (!s) {
        fprintf(stderr, "mlsysd schema: this build's contract has no Plan schema\n");
        rc = EXIT_INVALID;
    } else {
        strbuf b;
        sb_init(&b);
        json_write(&b, s, 2);
        sb_putc(&b, '\n');
        if (fwrite(b.data, 1, b.len, stdout) != b.len || fflush(stdout) != 0)
            rc = EXIT_INVALID;
        sb_free(&b);
        json_decref(s);
    }
    local_app_free(&l);
    return rc;
}
