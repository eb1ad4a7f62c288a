/* bench_search.c - parallelism's exhaustive search on the catalog's
 * clusters, without HTTP: how long one search takes and how many
 * configurations it sizes per second.
 *
 *   bench_search           one "RESULT key value unit" line per figure
 *   bench_search --quick   fewer runs (a smoke run: checks it works)
 *
 * For Llama-3-70B at a global batch of 1,024, 4,096 and 65,536 sequences on
 * Research_256, Training_1K and Mega_100K (100,000 H100), mode exhaustive,
 * top_k 10 (the default):
 *   search_<cluster>_<batch>_ms     the median of RUNS searches, in ms
 *   search_<cluster>_<batch>_cps    configurations sized per second (total_searched / time)
 * The target: Mega_100K under 100 ms on one core. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "bench/bench_util.h"

#include "catalog/catalog.h"
#include "core/solver.h"
#include "server/inputs.h"

#define RUNS 9

static void die(const char *what, const char *detail)
{
    fprintf(stderr, "bench_search: %s: %s\n", what, detail);
    exit(1);
}

int main(int argc, char **argv)
{
    int runs = argc > 1 && !strcmp(argv[1], "--quick") ? 3 : RUNS;
    catalog *cat;
    char msg[256];
    if (catalog_load(&cat, NULL, msg, sizeof msg) != 0)
        die("catalog", msg);
    const catalog_edition *ed = catalog_default_edition(cat);
    const solver_desc *s = solver_at((size_t)solver_find("parallelism"));
    const int searched_at = solver_output_index(s, "total_searched");
    static const char *const CLUSTERS[] = {"Research_256", "Training_1K", "Mega_100K"};
    static const int BATCHES[] = {1024, 4096, 65536};
    static solver_inputs in;
    static solver_outputs out;
    for (size_t c = 0; c < sizeof CLUSTERS / sizeof *CLUSTERS; c++) {
        for (size_t b = 0; b < sizeof BATCHES / sizeof *BATCHES; b++) {
            char body[300];
            snprintf(body, sizeof body,
                     "{\"model\":\"Llama3_70B\",\"fleet\":\"%s\",\"batch_size\":%d,\"mode\":\"exhaustive\"}",
                     CLUSTERS[c], BATCHES[b]);
            json_error_t je;
            json_t *j = json_loads(body, 0, &je);
            api_error err;
            if (!j)
                die("inputs JSON", je.text);
            if (inputs_from_json(s, j, ed, &in, &err) != 0)
                die("inputs", err.detail);
            json_decref(j);
            double t[RUNS], searched = 0;
            for (int r = 0; r < runs; r++) {
                solver_error se = {0};
                solver_outputs_reset(&out);
                double t0 = now_s();
                if (s->run(&in, &out, &se) != 0)
                    die(CLUSTERS[c], se.detail);
                t[r] = now_s() - t0;
                searched = out.v[searched_at].num;
            }
            inputs_release(&in);
            qsort(t, (size_t)runs, sizeof *t, cmp_double);
            double median = t[runs / 2];
            printf("RESULT search_%s_%d_ms %.6g ms\n", CLUSTERS[c], BATCHES[b], median * 1e3);
            printf("RESULT search_%s_%d_cps %.6g 1/s (%.0f configurations)\n", CLUSTERS[c], BATCHES[b],
                   searched / median, searched);
        }
    }
    catalog_free(cat);
    return 0;
}
