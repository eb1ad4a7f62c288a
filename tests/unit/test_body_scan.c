/* test_body_scan.c - POST /solve reads the bodies clients send without a JSON
 * tree (server/body_scan.c) and must answer exactly as jansson's path does.
 *
 * Every body is sent twice through app_handle: as written, and with its
 * "solver" key spelled with an escape ("solve\u0072"), which means the same
 * JSON but is declined by the scan, so jansson reads it. The two answers must
 * be the same bytes with the same status: for every golden case in both
 * calibration modes, and for bodies at the edges of the scanned shape (errors
 * included; invalid JSON must be declined). Then what the scan declines and accepts, one case each. */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "golden_files.h"
#include "app_fixture.h"
#include "server/body_scan.h"
#include "server/reply.h"

static void post(const char *body, app_response *resp)
{
    app_request req = {.method = "POST", .path = "/solve", .body = body, .body_len = strlen(body),
                       .content_type = "application/json", .request_id = "scan-test"};
    memset(resp, 0, sizeof *resp);
    sb_init(&resp->body);
    app_handle(&fixture_app, &req, resp);
}

static bool scans(const char *body)
{
    body_scan b;
    if (body_scan_solve(body, strlen(body), &b) != 0)
        return false;
    body_scan_release(&b);
    return true;
}

/* The body answered both ways must give the same status and bytes. Returns
 * whether the scan read it; false (and nothing compared) for a body without
 * a "solver" key to escape. */
static bool same_both_ways(const char *body, const char *what)
{
    json_t *parsed = json_loads(body, JSON_REJECT_DUPLICATES, NULL);
    if (!parsed) { /* invalid JSON: jansson answers it either way (the escape would move its column) */
        cr_expect(!scans(body), "%s: invalid JSON was scanned: %.300s", what, body);
        return false;
    }
    json_decref(parsed);
    const char *at = strstr(body, "\"solver\"");
    if (!at)
        return false;
    size_t pre = (size_t)(at - body);
    char *escaped = malloc(strlen(body) + 8);
    cr_assert_not_null(escaped);
    sprintf(escaped, "%.*s\"solve\\u0072\"%s", (int)pre, body, at + strlen("\"solver\""));
    cr_assert(!scans(escaped), "%s: the escaped body was scanned", what);
    app_response fast, slow;
    post(body, &fast);
    post(escaped, &slow);
    cr_expect_eq(fast.status, slow.status, "%s: status %d scanned, %d through jansson\n body: %.300s", what,
                 fast.status, slow.status, body);
    cr_expect(fast.body.len == slow.body.len && !memcmp(fast.body.data, slow.body.data, fast.body.len),
              "%s: the answers differ\n body:     %.300s\n scanned:  %.600s\n jansson:  %.600s", what, body,
              fast.body.data, slow.body.data);
    app_response_free(&fast);
    app_response_free(&slow);
    free(escaped);
    return scans(body);
}

Test(body_scan, every_golden_case_answers_as_through_jansson, .init = app_fixture_setup,
     .fini = app_fixture_teardown, .timeout = 300)
{
    golden_file golden[GOLDEN_MAX_FILES];
    int files = golden_files(".jsonl", golden, GOLDEN_MAX_FILES);
    cr_assert_gt(files, 0, "no *.jsonl in %s or %s", golden_vendored_dir(), golden_shared_dir());
    int bodies = 0, scanned = 0;
    for (int g = 0; g < files; g++) {
        FILE *f = fopen(golden[g].path, "r");
        cr_assert(f, "cannot read %s", golden[g].path);
        char *line = NULL;
        size_t cap = 0, lineno = 0;
        while (getline(&line, &cap, f) > 0) {
            lineno++;
            json_t *c = json_loads(line, 0, NULL);
            cr_assert(c, "%s:%zu is not JSON", golden[g].name, lineno);
            for (int mode = 0; mode < 2; mode++) {
                json_t *body = json_pack("{s:O,s:O,s:O}", "solver", json_object_get(c, "solver"), "inputs",
                                         json_object_get(c, "inputs"), "catalog", json_object_get(c, "catalog"));
                if (mode)
                    json_object_set_new(body, "calibration", json_string("measured"));
                char *text = json_dumps(body, JSON_COMPACT);
                char what[300];
                snprintf(what, sizeof what, "%s:%zu%s", golden[g].name, lineno, mode ? " (measured)" : "");
                scanned += same_both_ways(text, what);
                bodies++;
                free(text);
                json_decref(body);
            }
            json_decref(c);
        }
        free(line);
        fclose(f);
    }
    fprintf(stderr, "body scan: %d golden bodies answered alike both ways, %d of them scanned\n", bodies, scanned);
    /* the golden bodies are the shape clients send: the scan must read nearly all of them */
    cr_expect_geq(scanned, bodies * 95 / 100, "only %d of %d golden bodies were scanned", scanned, bodies);
}

/* Bodies at the edges of the scanned shape, errors included. */
static const char *const EDGES[] = {
    "{\"solver\":\"single_node\",\"inputs\":{\"model\":\"ResNet50\",\"hardware\":\"A100\",\"batch_size\":256}}",
    "{\"inputs\":{\"batch_size\":2.0,\"model\":\"ResNet50\",\"hardware\":\"A100\"},\"solver\":\"SINGLE_NODE\"}",
    "  {\"solver\" : \"single_node\" ,\n\t\"inputs\" : {\"model\":\"ResNet50\",\"hardware\":\"A100\",\"batch_size\":-0}}\r\n",
    "{\"solver\":\"single_node\",\"inputs\":{\"model\":{\"base\":\"ResNet50\",\"parameters\":\"30 M\"},\"hardware\":{\"base\":\"A100\",\"memory\":{\"capacity\":\"40 GB\"}}}}",
    "{\"solver\":\"single_node\",\"inputs\":{\"model\":\"ResNet50\",\"hardware\":\"A100\",\"batch_size\":2.5}}",
    "{\"solver\":\"single_node\",\"inputs\":{\"model\":\"ResNet50\",\"hardware\":\"A100\",\"batch_size\":\"256\"}}",
    "{\"solver\":\"single_node\",\"inputs\":{\"model\":\"ResNet50\",\"hardware\":\"A100\",\"batch_size\":null}}",
    "{\"solver\":\"single_node\",\"inputs\":{\"model\":\"ResNet50\",\"hardware\":\"A100\",\"batch_size\":1e400}}",
    "{\"solver\":\"single_node\",\"inputs\":{\"model\":\"ResNet50\",\"hardware\":\"A100\",\"batch_size\":99999999999999999999}}",
    "{\"solver\":\"single_node\",\"inputs\":{\"model\":\"ResNet50\",\"hardware\":\"A100\",\"is_training\":true,\"precision\":\"FP16\"}}",
    "{\"solver\":\"single_node\",\"inputs\":{\"model\":42,\"hardware\":\"A100\"}}",
    "{\"solver\":\"single_node\",\"inputs\":{\"model\":[\"ResNet50\"],\"hardware\":\"A100\"}}",
    "{\"solver\":\"single_node\",\"inputs\":{\"model\":\"ResNet5\",\"hardware\":\"A100\"}}",
    "{\"solver\":\"single_node\",\"inputs\":{\"modell\":\"ResNet50\",\"hardware\":\"A100\"}}",
    "{\"solver\":\"single_node\",\"inputs\":{\"hardware\":\"A100\"}}",
    "{\"solver\":\"single_node\"}",
    "{\"solver\":\"single_node\",\"inputs\":{}}",
    "{\"solver\":\"nope\",\"inputs\":{}}",
    "{\"solver\":\"single_node\",\"catalog\":\"tutorial\",\"calibration\":\"Measured\",\"inputs\":{\"model\":\"ResNet50\",\"hardware\":\"A100\"}}",
    "{\"solver\":\"single_node\",\"catalog\":\"nope\",\"inputs\":{\"model\":\"ResNet50\",\"hardware\":\"A100\"}}",
    "{\"solver\":\"single_node\",\"calibration\":\"exact\",\"inputs\":{\"model\":\"ResNet50\",\"hardware\":\"A100\"}}",
    "{\"solver\":\"single_node\",\"calibration\":1,\"inputs\":{\"model\":\"ResNet50\",\"hardware\":\"A100\"}}",
    "{\"solver\":\"single_node\",\"inputs\":{\"model\":\"ResNet50\",\"hardware\":\"A100\"},\"extra\":1}",
    "{\"solver\":\"single_node\",\"inputs\":[]}",
    "{\"solver\":\"single_node\",\"inputs\":{\"model\":\"ResNet50\",\"model\":\"ResNet50\",\"hardware\":\"A100\"}}",
    "{\"solver\":\"single_node\",\"inputs\":{\"model\":{\"base\":\"ResNet50\",\"base\":\"BERT_Base\"},\"hardware\":\"A100\"}}",
    "{\"solver\":\"single_node\",\"inputs\":{\"model\":\"ResNet50\",\"hardware\":\"A100\"}} x",
    "{\"solver\":\"single_node\",\"inputs\":{\"model\":\"ResNet50\",\"hardware\":\"A100\",}}",
    "{\"solver\":\"single_node\",\"inputs\":{\"model\":\"Res\xc3\xa9Net\",\"hardware\":\"A100\"}}",
    "{\"solver\":\"single_node\",\"inputs\":{\"model\":\"Res\xed\xa0\x80Net\",\"hardware\":\"A100\"}}",
    "{\"solver\":\"single_node\",\"inputs\":{\"model\":\"Res\xc0\xafNet\",\"hardware\":\"A100\"}}",
    "{\"solver\":\"single_node\",\"inputs\":{\"model\":\"ResNet50\",\"hardware\":\"A100\"\x0b}}",
    "{\"solver\":\"serving_simulation\",\"inputs\":{\"model\":\"Llama3_8B\",\"hardware\":\"H100\",\"request_trace\":"
    "[{\"arrival_s\":0,\"prompt_tokens\":512,\"output_tokens\":64},{\"arrival_s\":0.5,\"prompt_tokens\":128,"
    "\"output_tokens\":32}]}}",
    "{\"solver\":\"serving_simulation\",\"inputs\":{\"model\":\"Llama3_8B\",\"hardware\":\"H100\",\"request_trace\":"
    "[{\"arrival_s\":1,\"prompt_tokens\":512,\"output_tokens\":64},{\"arrival_s\":0.5,\"prompt_tokens\":128,"
    "\"output_tokens\":32}]}}",
    "{\"solver\":\"serving_simulation\",\"inputs\":{\"model\":\"Llama3_8B\",\"hardware\":\"H100\",\"request_trace\":[[]]}}",
    "{\"solver\":\"economics\",\"inputs\":{\"fleet\":{\"node\":\"DGX_H100\",\"count\":4,\"fabric\":\"InfiniBand_NDR\"}}}",
    "{\"solver\":\"distributed\",\"calibration\":\"measured\",\"inputs\":{\"model\":\"Llama3_70B\",\"fleet\":{\"node\":"
    "\"DGX_H100\",\"count\":32,\"fabric\":\"InfiniBand_NDR\"},\"tp_size\":8,\"pp_size\":4,\"batch_size\":512,"
    "\"seq_len\":4096,\"step_model\":\"sharded\"}}",
    "{\"solver\":\"synthesis\",\"inputs\":{\"model\":\"Llama3_8B\",\"hardware_options\":[\"A100\",\"H100\"]}}",
    "{\"solver\":\"synthesis\",\"inputs\":{\"model\":\"Llama3_8B\",\"hardware_options\":\"A100,H100\"}}",
};

Test(body_scan, edge_bodies_answer_as_through_jansson, .init = app_fixture_setup, .fini = app_fixture_teardown)
{
    int scanned = 0;
    for (size_t i = 0; i < sizeof EDGES / sizeof EDGES[0]; i++) {
        char what[40];
        snprintf(what, sizeof what, "edge body %zu", i);
        scanned += same_both_ways(EDGES[i], what);
    }
    cr_expect_gt(scanned, 10, "only %d edge bodies were scanned", scanned);
}

/* yajl copies each number's text into its own buffer (2 KiB at first) to read it; a
 * number of 10,000 digits makes that buffer outgrow the block on the stack that the
 * scan gives yajl, so it moves to malloc and is freed there (run under ASan in CI). */
Test(body_scan, a_number_longer_than_yajls_block, .init = app_fixture_setup, .fini = app_fixture_teardown)
{
    enum { DIGITS = 10000 };
    static const char head[] = "{\"solver\":\"single_node\",\"inputs\":{\"model\":\"ResNet50\",\"hardware\":\"A100\","
                               "\"efficiency\":0.";
    char *body = malloc(sizeof head + DIGITS + 8);
    cr_assert_not_null(body);
    memcpy(body, head, sizeof head - 1);
    char *p = body + sizeof head - 1;
    memset(p, '4', DIGITS); /* 0.444...: the efficiency, read as the double nearest 4/9 */
    strcpy(p + DIGITS, "}}");
    cr_expect(same_both_ways(body, "a 10,000-digit number"), "the body was not scanned");
    body_scan b;
    cr_assert_eq(body_scan_solve(body, strlen(body), &b), 0);
    cr_expect(b.value[2].t == GIVEN_REAL && b.value[2].r == 4.0 / 9.0);
    body_scan_release(&b);
    free(body);
}

Test(body_scan, declines_what_jansson_reads_differently)
{
    static const char *const DECLINED[] = {
        "",
        "[]",
        "42",
        "{\"solver\":\"single\\u005fnode\"}",                              /* an escape */
        "{\"solver\":\"single_node\",\"solver\":\"serving\"}",              /* a duplicate envelope member */
        "{\"solver\":\"single_node\",\"inputs\":{\"a\":1,\"a\":2}}",        /* a duplicate input */
        "{\"solver\":\"single_node\",\"inputs\":{\"a\":{\"b\":1,\"b\":2}}}", /* a duplicate inside a value */
        "{\"solver\":\"single_node\",\"other\":1}",                         /* a member outside the envelope */
        "{\"solver\":1}",                                                    /* a solver that is no string */
        "{\"inputs\":{}}",                                                   /* no solver */
        "{\"solver\":\"single_node\",\"inputs\":null}",
        "{\"solver\":\"single_node\"} {}",                                  /* trailing text */
        "{\"solver\":\"single_node\"}\"sol",                                /* an unfinished token after it */
        "{\"solver\":\"single_node\"} tru",
        "{\"solver\":\"single_node\"} 12",
        "{\"solver\":\"single_node\",\"inputs\":{\"a\":99999999999999999999}}",
        "{\"solver\":\"single_node\",\"inputs\":{\"a\":1e999}}",
        "{\"solver\":\"single_node\",\"inputs\":{\"a\":\"\xed\xa0\x80\"}}", /* an encoded surrogate */
        "{\"solver\":\"single_node\",\"inputs\":{\"a\":\"\xc0\xaf\"}}",     /* an overlong form */
        "{\"solver\":\"single_node\"\f}",                                    /* whitespace jansson refuses */
        "{\"solver\":\"single_node\",\"inputs\":{\"a\":01}}",
        "{\"solver\":\"single_node\",\"inputs\":{\"a\":\"x\ny\"}}",         /* a control character */
    };
    for (size_t i = 0; i < sizeof DECLINED / sizeof DECLINED[0]; i++)
        cr_expect(!scans(DECLINED[i]), "declined body %zu was scanned: %s", i, DECLINED[i]);

    /* whitespace around the envelope is read */
    cr_expect(scans(" \t{\"solver\":\"single_node\",\"inputs\":{\"a\":[1,{\"b\":2}]}} \r\n"));

    /* deeper than the scan builds */
    char deep[400] = "{\"solver\":\"single_node\",\"inputs\":{\"a\":";
    for (int k = 0; k < 70; k++)
        strcat(deep, "[");
    for (int k = 0; k < 70; k++)
        strcat(deep, "]");
    strcat(deep, "}}");
    cr_expect(!scans(deep));

    /* more text than the budget */
    char *big = malloc(BODY_SCAN_TEXT + 100);
    cr_assert_not_null(big);
    strcpy(big, "{\"solver\":\"single_node\",\"inputs\":{\"model\":\"");
    size_t n = strlen(big);
    memset(big + n, 'x', BODY_SCAN_TEXT);
    strcpy(big + n + BODY_SCAN_TEXT, "\"}}");
    cr_expect(!scans(big));
    free(big);
}

Test(body_scan, reads_values_as_jansson_does)
{
    const char *text = "{\"solver\":\"single_node\",\"catalog\":\"tutorial\",\"inputs\":{\"a\":-0,\"b\":2.50,"
                       "\"c\":1E2,\"d\":true,\"e\":null,\"f\":\"\xc3\xa9\",\"g\":{\"x\":[1,2.5,\"y\",false,null]},"
                       "\"h\":[]}}";
    body_scan b;
    cr_assert_eq(body_scan_solve(text, strlen(text), &b), 0);
    cr_expect_str_eq(b.solver, "single_node");
    cr_expect_str_eq(b.catalog, "tutorial");
    cr_expect_null(b.calibration);
    cr_assert_eq(b.n_inputs, 8);
    cr_expect(b.value[0].t == GIVEN_INT && b.value[0].i == 0);
    cr_expect(b.value[1].t == GIVEN_REAL && b.value[1].r == 2.5);
    cr_expect(b.value[2].t == GIVEN_REAL && b.value[2].r == 100.0);
    cr_expect(b.value[3].t == GIVEN_BOOL && b.value[3].b);
    cr_expect(b.value[4].t == GIVEN_NULL);
    cr_expect(b.value[5].t == GIVEN_STRING && !strcmp(b.value[5].s, "\xc3\xa9"));
    cr_assert(b.value[6].t == GIVEN_JSON);
    json_t *want = json_loads("{\"x\":[1,2.5,\"y\",false,null]}", 0, NULL);
    cr_expect(json_equal(b.value[6].j, want));
    json_decref(want);
    cr_expect(b.value[7].t == GIVEN_JSON && json_is_array(b.value[7].j) && json_array_size(b.value[7].j) == 0);
    for (size_t i = 0; i < b.n_inputs; i++) {
        char key[2] = {(char)('a' + i), '\0'};
        cr_expect_str_eq(b.key[i], key);
    }
    body_scan_release(&b);
}
