/* test_shards.c - sharded sweeps and the batch CLI against the real daemon:
 * the shards of a sweep (1, 2, 7 and more shards than points) concatenate in
 * index order to the unsharded body byte for byte in CSV and NDJSON, over
 * POST, GET and `mlsysd sweep`; JSON shards are documents whose rows
 * concatenate to the unsharded rows; index=true numbers rows globally; bad
 * shard values are 400 problems naming shard; the point cap applies per
 * shard; `mlsysd solve|sweep` answer what the server answers, and exit 2 with
 * the problem's detail on stderr on bad input. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"

/* 3 accelerators x 4 batch sizes (0 is refused: those rows carry an error) x 2
 * precisions = 24 points, a range axis among them, categorical outputs too. */
#define SWEEP_BODY                                                                                                   \
    "{\"solver\":\"single_node\",\"inputs\":{\"model\":\"ResNet50\"},"                                               \
    "\"axes\":[{\"input\":\"hardware\",\"values\":[\"T4\",\"A100\",\"H100\"]},"                                      \
    "{\"input\":\"batch_size\",\"range\":{\"start\":0,\"stop\":48,\"step\":16}},"                                   \
    "{\"input\":\"precision\",\"values\":[\"fp32\",\"fp16\"]}],"                                                     \
    "\"outputs\":[\"latency\",\"bottleneck\",\"feasible\"]"
#define POINTS 24

static const unsigned COUNTS[] = {1, 2, 7, POINTS + 5};
static const char *const FORMATS[] = {"csv", "ndjson"};

/* The sweep body with format and extra members (",\"shard\":...") appended. */
static char *body_with(const char *format, const char *extra)
{
    size_t n = sizeof SWEEP_BODY + strlen(format) + (extra ? strlen(extra) : 0) + 16;
    char *b = malloc(n);
    cr_assert(b);
    snprintf(b, n, SWEEP_BODY ",\"format\":\"%s\"%s}", format, extra ? extra : "");
    return b;
}

static char *post_sweep(const char *body, long want_status)
{
    http_resp r;
    cr_assert_eq(http_post_json(shared_daemon(), "/sweep", body, &r), 0);
    cr_assert_eq(r.status, want_status, "status %ld for %s: %.300s", r.status, body, r.body);
    char *text = strndup(r.body ? r.body : "", r.len);
    http_free(&r);
    return text;
}

static void append(char **acc, size_t *len, const char *s)
{
    size_t n = strlen(s);
    *acc = realloc(*acc, *len + n + 1);
    memcpy(*acc + *len, s, n + 1);
    *len += n;
}

/* Runs build/mlsysd with args, stdin from `in`; stdout and stderr returned
 * (malloc'd, NUL-terminated); returns the exit code. */
static int run_cli(const char *const *args, const char *in, char **out, char **err)
{
    char inp[] = "/tmp/mlsysd-cli-in-XXXXXX", outp[] = "/tmp/mlsysd-cli-out-XXXXXX",
         errp[] = "/tmp/mlsysd-cli-err-XXXXXX";
    int fi = mkstemp(inp), fo = mkstemp(outp), fe = mkstemp(errp);
    cr_assert(fi >= 0 && fo >= 0 && fe >= 0);
    cr_assert_eq(write(fi, in, strlen(in)), (ssize_t)strlen(in));
    lseek(fi, 0, SEEK_SET);
    pid_t pid = fork();
    cr_assert(pid >= 0);
    if (pid == 0) {
        dup2(fi, 0);
        dup2(fo, 1);
        dup2(fe, 2);
        const char *argv[16] = {MLSYSD_BINARY};
        for (int i = 0; args[i] && i < 14; i++)
            argv[i + 1] = args[i];
        execv(MLSYSD_BINARY, (char *const *)argv);
        _exit(127);
    }
    int status;
    waitpid(pid, &status, 0);
    close(fi);
    close(fo);
    close(fe);
    size_t n;
    *out = read_file(outp, &n);
    *err = read_file(errp, &n);
    unlink(inp);
    unlink(outp);
    unlink(errp);
    cr_assert(*out && *err);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static char *cli_ok(const char *const *args, const char *in)
{
    char *out, *err;
    int rc = run_cli(args, in, &out, &err);
    cr_assert_eq(rc, 0, "mlsysd %s exited %d: %s", args[0], rc, err);
    cr_expect_str_empty(err, "stderr: %s", err);
    free(err);
    return out;
}

Test(shards, csv_and_ndjson_concatenate_over_post, .timeout = 60)
{
    for (size_t f = 0; f < sizeof FORMATS / sizeof *FORMATS; f++) {
        char *full_body = body_with(FORMATS[f], NULL);
        char *full = post_sweep(full_body, 200);
        cr_assert(strlen(full) > 0);
        for (size_t c = 0; c < sizeof COUNTS / sizeof *COUNTS; c++) {
            char *cat = NULL;
            size_t len = 0;
            for (unsigned i = 0; i < COUNTS[c]; i++) {
                char extra[64];
                snprintf(extra, sizeof extra, ",\"shard\":{\"index\":%u,\"count\":%u}", i, COUNTS[c]);
                char *b = body_with(FORMATS[f], extra);
                char *part = post_sweep(b, 200);
                if (COUNTS[c] > POINTS)
                    cr_expect_eq(strlen(part) == 0, i >= POINTS, "%s shard %u/%u of %d points: '%s'", FORMATS[f], i,
                                 COUNTS[c], POINTS, part);
                append(&cat, &len, part);
                free(part);
                free(b);
            }
            cr_expect_str_eq(cat, full, "%s: %u shards concatenated differ from the unsharded body", FORMATS[f],
                             COUNTS[c]);
            free(cat);
        }
        free(full);
        free(full_body);
    }
}

Test(shards, get_query_shards_concatenate, .timeout = 60)
{
    const char *base = "/sweep/single_node?model=ResNet50&hardware=T4,A100,H100&batch_size=1,8,64,512&format=csv";
    http_resp r;
    cr_assert_eq(http_get(shared_daemon(), base, &r), 0);
    cr_assert_eq(r.status, 200);
    char *full = strndup(r.body, r.len);
    http_free(&r);
    char *cat = NULL;
    size_t len = 0;
    for (int i = 0; i < 5; i++) {
        char path[256];
        snprintf(path, sizeof path, "%s&shard=%d/5", base, i);
        cr_assert_eq(http_get(shared_daemon(), path, &r), 0);
        cr_assert_eq(r.status, 200, "%s: %ld %.200s", path, r.status, r.body);
        /* the media type says whether this part starts with the header */
        cr_expect(strstr(r.content_type, i == 0 ? "header=present" : "header=absent"), "shard %d: %s", i,
                  r.content_type);
        char disp[160];
        cr_expect(http_header(&r, "Content-Disposition", disp, sizeof disp));
        char want[64];
        snprintf(want, sizeof want, "sweep-single_node.part-%d-of-5.csv", i);
        cr_expect(strstr(disp, want), "Content-Disposition %s", disp);
        char *part = strndup(r.body ? r.body : "", r.len);
        append(&cat, &len, part);
        free(part);
        http_free(&r);
    }
    cr_expect_str_eq(cat, full);
    free(cat);
    free(full);
}

/* A JSON shard is a document: its shard member says where its rows start, and
 * the rows of the shards in index order are the unsharded rows. */
Test(shards, json_rows_concatenate, .timeout = 60)
{
    char *full_body = body_with("json", NULL);
    char *full_text = post_sweep(full_body, 200);
    json_t *full = json_loads(full_text, 0, NULL);
    cr_assert(full);
    const json_t *full_rows = json_object_get(full, "rows");
    cr_assert_eq(json_array_size(full_rows), POINTS);
    cr_expect_null(json_object_get(full, "shard"), "an unsharded sweep has no shard member");
    for (size_t c = 0; c < sizeof COUNTS / sizeof *COUNTS; c++) {
        json_t *rows = json_array();
        for (unsigned i = 0; i < COUNTS[c]; i++) {
            char extra[64];
            snprintf(extra, sizeof extra, ",\"shard\":\"%u/%u\"", i, COUNTS[c]);
            char *b = body_with("json", extra);
            char *t = post_sweep(b, 200);
            json_t *doc = json_loads(t, 0, NULL);
            cr_assert(doc, "shard %u/%u is not JSON: %.200s", i, COUNTS[c], t);
            const json_t *sh = json_object_get(doc, "shard");
            cr_expect_eq(json_integer_value(json_object_get(sh, "index")), i);
            cr_expect_eq(json_integer_value(json_object_get(sh, "count")), COUNTS[c]);
            cr_expect_eq((size_t)json_integer_value(json_object_get(sh, "first_point")), json_array_size(rows));
            cr_expect_eq((size_t)json_integer_value(json_object_get(sh, "points")),
                         json_array_size(json_object_get(doc, "rows")));
            cr_expect_eq(json_integer_value(json_object_get(doc, "points")), POINTS);
            json_array_extend(rows, json_object_get(doc, "rows"));
            if (COUNTS[c] == 1) {
                /* one shard: the whole document, transitions included, with a shard member */
                json_object_del(doc, "shard");
                cr_expect(json_equal(doc, full), "shard 0/1 differs from the unsharded document beyond its shard member");
            }
            json_decref(doc);
            free(t);
            free(b);
        }
        cr_expect(json_equal(rows, full_rows), "%u JSON shards' rows differ from the unsharded rows", COUNTS[c]);
        json_decref(rows);
    }
    json_decref(full);
    free(full_text);
    free(full_body);
}

/* index=true: every row starts with its global point number, in every format and shard. */
Test(shards, index_column_is_global, .timeout = 60)
{
    char *b = body_with("json", ",\"index\":true,\"shard\":{\"index\":2,\"count\":7}");
    char *t = post_sweep(b, 200);
    json_t *doc = json_loads(t, 0, NULL);
    cr_assert(doc);
    cr_expect_str_eq(json_string_value(json_array_get(json_object_get(doc, "columns"), 0)), "index");
    long long first = json_integer_value(json_object_get(json_object_get(doc, "shard"), "first_point"));
    cr_expect_eq(first, 8, "24 points in 7 shards: runs of 4,4,4,3,3,3,3, so shard 2 starts at 8");
    size_t i;
    json_t *row;
    json_array_foreach(json_object_get(doc, "rows"), i, row)
        cr_expect_eq(json_integer_value(json_array_get(row, 0)), first + (long long)i);
    json_decref(doc);
    free(t);
    free(b);

    b = body_with("ndjson", ",\"index\":true,\"shard\":\"6/7\"");
    t = post_sweep(b, 200);
    const char *line = "{\"index\":21,\"hardware\":\"H100\",\"batch_size\":32,\"precision\":\"fp16\",";
    cr_expect(strncmp(t, line, strlen(line)) == 0, "%.80s", t);
    free(t);
    free(b);
    b = body_with("csv", ",\"index\":true");
    t = post_sweep(b, 200);
    const char *head = "index,hardware,batch_size,precision,latency_ms,";
    cr_expect(strncmp(t, head, strlen(head)) == 0, "%.80s", t);
    cr_expect(strstr(t, "\r\n23,H100,48,fp16,"), "%s", t);
    free(t);
    free(b);
}

static void expect_shard_problem(const char *extra, const char *field)
{
    char *b = body_with("csv", extra);
    char *t = post_sweep(b, 400);
    json_t *p = json_loads(t, 0, NULL);
    cr_assert(p, "%s -> %s", extra, t);
    expect_refusal(p, 400, 400, field, "shard");
    json_decref(p);
    free(t);
    free(b);
}

Test(shards, bad_shard_is_a_400_naming_shard)
{
    expect_shard_problem(",\"shard\":{\"index\":2,\"count\":2}", "shard");
    expect_shard_problem(",\"shard\":{\"index\":-1,\"count\":2}", "shard.index");
    expect_shard_problem(",\"shard\":{\"index\":0,\"count\":0}", "shard.count");
    expect_shard_problem(",\"shard\":{\"index\":0}", "shard.count");
    expect_shard_problem(",\"shard\":{\"index\":0.5,\"count\":2}", "shard.index");
    expect_shard_problem(",\"shard\":{\"index\":0,\"count\":2,\"of\":3}", "shard");
    expect_shard_problem(",\"shard\":\"1/0\"", "shard");
    expect_shard_problem(",\"shard\":\"a/b\"", "shard");
    expect_shard_problem(",\"shard\":\"1/2/3\"", "shard");
    expect_shard_problem(",\"shard\":\"-1/2\"", "shard");
    expect_shard_problem(",\"shard\":\"1/99999999999999999999\"", "shard");
    expect_shard_problem(",\"shard\":3", "shard");

    http_resp r;
    cr_assert_eq(http_get(shared_daemon(), "/sweep/single_node?model=ResNet50&hardware=T4,A100&batch_size=1&shard=5/3", &r), 0);
    cr_expect_eq(r.status, 400);
    json_t *p = http_json(&r);
    cr_expect_str_eq(json_string_value(json_object_get(p, "field")), "shard");
    json_decref(p);
    http_free(&r);
    cr_assert_eq(http_get(shared_daemon(), "/sweep/single_node?model=ResNet50&hardware=T4,A100&batch_size=1&index=maybe", &r), 0);
    cr_expect_eq(r.status, 400);
    p = http_json(&r);
    cr_expect_str_eq(json_string_value(json_object_get(p, "field")), "index");
    json_decref(p);
    http_free(&r);
}

/* The cap bounds one request's work: a sweep over the cap runs as shards under it. */
Test(shards, point_cap_applies_per_shard, .timeout = 60)
{
    daemon_t d;
    cr_assert_eq(daemon_start(&d, (const char *const[]){"--sweep-max-points", "10", NULL}, NULL), 0);
    http_resp r;
    char *b = body_with("csv", NULL);
    cr_assert_eq(http_post_json(&d, "/sweep", b, &r), 0);
    cr_expect_eq(r.status, 413, "24 points over a cap of 10");
    http_free(&r);
    free(b);
    b = body_with("csv", ",\"shard\":\"0/2\"");
    cr_assert_eq(http_post_json(&d, "/sweep", b, &r), 0);
    cr_expect_eq(r.status, 413, "a shard of 12 points over a cap of 10");
    json_t *p = http_json(&r);
    cr_expect_str_eq(json_string_value(json_object_get(p, "field")), "shard");
    cr_expect(strstr(json_string_value(json_object_get(p, "detail")), "12 of the sweep's 24 points"), "%s", r.body);
    json_decref(p);
    http_free(&r);
    free(b);
    b = body_with("csv", ",\"shard\":\"2/3\"");
    cr_assert_eq(http_post_json(&d, "/sweep", b, &r), 0);
    cr_expect_eq(r.status, 200, "a shard of 8 points under the cap: %.200s", r.body);
    int lines = 0;
    for (size_t i = 0; i < r.len; i++)
        lines += r.body[i] == '\n';
    cr_expect_eq(lines, 8, "shard 2/3: 8 rows and no header");
    http_free(&r);
    free(b);
    cr_expect_eq(daemon_stop(&d), 0);
}

/* A trillion-point sweep: a far shard is computed without the points before it,
 * its rows numbered globally; past what a point index counts is a 413. */
Test(shards, far_shards_of_huge_sweeps)
{
    const char *space = "{\"solver\":\"single_node\",\"inputs\":{\"model\":\"ResNet50\",\"hardware\":\"A100\"},"
                        "\"axes\":[{\"input\":\"batch_size\",\"range\":{\"start\":1,\"stop\":1000000,\"step\":1}},"
                        "{\"input\":\"seq_len\",\"range\":{\"start\":1,\"stop\":1000000,\"step\":1}}%s],"
                        "\"outputs\":[\"latency\"],\"format\":\"csv\",\"index\":true%s}";
    char body[1024];
    snprintf(body, sizeof body, space, "", ",\"shard\":\"999999999/1000000000\"");
    char *t = post_sweep(body, 200);
    int rows = 0;
    for (const char *c = t; *c; c++)
        rows += *c == '\n';
    cr_expect_eq(rows, 1000, "10^12 points in 10^9 shards: 1000 each, no header past shard 0");
    cr_expect(strncmp(t, "999999999000,1000000,999001,", 28) == 0, "%.60s", t);
    cr_expect(strstr(t, "\r\n999999999999,1000000,1000000,"), "the last point");
    free(t);
    snprintf(body, sizeof body, space, "", ",\"shard\":\"500000000/1000000000\"");
    t = post_sweep(body, 200);
    cr_expect(strncmp(t, "500000000000,500001,1,", 22) == 0, "%.60s", t);
    free(t);
    /* unsharded, the same sweep is over the cap */
    snprintf(body, sizeof body, space, "", "");
    free(post_sweep(body, 413));
    /* four such axes: 10^24 points, more than a point index counts, sharded or not */
    snprintf(body, sizeof body, space,
             ",{\"input\":\"dp_size\",\"range\":{\"start\":1,\"stop\":1000000,\"step\":1}},"
             "{\"input\":\"efficiency\",\"geomspace\":{\"start\":0.01,\"stop\":1,\"count\":1000000}}",
             ",\"shard\":\"0/1000000000000000000\"");
    t = post_sweep(body, 413);
    cr_expect(strstr(t, "more than a point's index can count"), "%s", t);
    free(t);
}

/* `mlsysd sweep` gives the server's bytes, whole and as shards. */
Test(shards, cli_sweep_matches_http, .timeout = 120)
{
    for (size_t f = 0; f < sizeof FORMATS / sizeof *FORMATS; f++) {
        char *full_body = body_with(FORMATS[f], NULL);
        char *full = post_sweep(full_body, 200);
        char *cli = cli_ok((const char *const[]){"sweep", NULL}, full_body);
        cr_expect_str_eq(cli, full, "mlsysd sweep (%s) differs from POST /sweep", FORMATS[f]);
        free(cli);
        for (size_t c = 0; c < sizeof COUNTS / sizeof *COUNTS; c++) {
            char *cat = NULL;
            size_t len = 0;
            for (unsigned i = 0; i < COUNTS[c]; i++) {
                char shard[32];
                snprintf(shard, sizeof shard, "%u/%u", i, COUNTS[c]);
                char *part = cli_ok((const char *const[]){"sweep", "--shard", shard, NULL}, full_body);
                append(&cat, &len, part);
                free(part);
            }
            cr_expect_str_eq(cat, full, "%s: %u CLI shards concatenated differ from the unsharded body", FORMATS[f],
                             COUNTS[c]);
            free(cat);
        }
        free(full);
        free(full_body);
    }
    /* --format and --index set the body's members */
    char *b = body_with("json", ",\"index\":true");
    char *want = post_sweep(b, 200);
    free(b);
    b = body_with("json", NULL);
    char *got = cli_ok((const char *const[]){"sweep", "--format", "json", "--index", NULL}, b);
    cr_expect_str_eq(got, want);
    free(got);
    free(want);
    free(b);
}

Test(shards, cli_solve_matches_http)
{
    const char *body = "{\"solver\":\"single_node\",\"inputs\":{\"model\":\"ResNet50\",\"hardware\":\"A100\",\"batch_size\":8}}";
    http_resp r;
    cr_assert_eq(http_post_json(shared_daemon(), "/solve", body, &r), 0);
    cr_assert_eq(r.status, 200);
    char *got = cli_ok((const char *const[]){"solve", NULL}, body);
    cr_expect_str_eq(got, r.body ? r.body : "");
    free(got);
    http_free(&r);
}

/* Bad input: exit 2, nothing on stdout, the problem's detail and field on stderr. */
Test(shards, cli_bad_input_exits_2)
{
    struct {
        const char *const *args;
        const char *in, *needle;
    } cases[] = {
        {(const char *const[]){"sweep", NULL}, "{\"solver\":\"single_node\",\"axes\":[]}", "field axes, 400"},
        {(const char *const[]){"sweep", NULL}, "{\"solver\":", "400"},
        {(const char *const[]){"sweep", NULL}, "{\"solver\":\"nope\",\"axes\":[{\"input\":\"x\",\"values\":[1]}]}",
         "unknown solver 'nope'"},
        {(const char *const[]){"sweep", "--shard", "4/4", NULL}, SWEEP_BODY "}", "field shard, 400 invalid-input"},
        {(const char *const[]){"sweep", "--format", "xml", NULL}, SWEEP_BODY "}", "field format"},
        {(const char *const[]){"solve", NULL}, "{\"solver\":\"single_node\",\"inputs\":{\"batch_size\":-1}}",
         "400"},
        {(const char *const[]){"sweep", "--bogus", NULL}, SWEEP_BODY "}", "unknown option '--bogus'"},
        {(const char *const[]){"solve", "--shard", "0/1", NULL}, "{}", "unknown option '--shard'"},
        {(const char *const[]){"sweep", "--in", "/nonexistent/request.json", NULL}, "", "cannot open"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char *out, *err;
        int rc = run_cli(cases[i].args, cases[i].in, &out, &err);
        cr_expect_eq(rc, 2, "case %zu: exit %d, stderr %s", i, rc, err);
        cr_expect_str_empty(out, "case %zu: stdout %.100s", i, out);
        cr_expect(strstr(err, cases[i].needle), "case %zu: stderr '%s' lacks '%s'", i, err, cases[i].needle);
        free(out);
        free(err);
    }
}

/* --out writes the file whole (through a renamed temporary), creating its directory. */
Test(shards, cli_out_file)
{
    char dir[] = "/tmp/mlsysd-cli-dir-XXXXXX";
    cr_assert(mkdtemp(dir));
    char path[128];
    snprintf(path, sizeof path, "%s/study/part-3.csv", dir);
    char *b = body_with("csv", NULL);
    char *stdout_text = cli_ok((const char *const[]){"sweep", "--shard", "3/7", "--out", path, NULL}, b);
    cr_expect_str_empty(stdout_text);
    size_t n;
    char *file = read_file(path, &n);
    cr_assert(file, "%s was not written", path);
    char *want = cli_ok((const char *const[]){"sweep", "--shard", "3/7", NULL}, b);
    cr_expect_str_eq(file, want);
    unlink(path);
    snprintf(path, sizeof path, "%s/study", dir);
    cr_expect_eq(rmdir(path), 0, "only the answer was left in the directory");
    rmdir(dir);
    free(want);
    free(file);
    free(stdout_text);
    free(b);
}
