/* calibrate.c - fits measured mode's parameters to the published
 * measurements and states the error that remains.
 *
 *   calibrate [--measurements DIR] [--root DIR]   fit and print the report
 *   calibrate --write                             also rewrite core/calibration_fit.c
 *                                                 and docs/validation.md
 *   calibrate --check                             refit; exit 1 if a family's
 *                                                 leave-one-source-out median is
 *                                                 above the one compiled in, or
 *                                                 the committed files differ
 *
 * The fit: every parameter of core/calibration.h that some measurement's
 * answer reads gets one value for every accelerator; a parameter that may be
 * keyed by accelerator also gets a value of its own on each accelerator whose
 * measurements come from at least two sources. Values minimise the sum over
 * measurements of a robust loss of log(predicted / measured), each source's
 * rows weighted by 1/sqrt(their count) so no single table dominates, plus a
 * pull of each accelerator's value toward the common one. Coordinate descent
 * in log space, a grid then golden-section search per value.
 *
 * Leave-one-source-out: for each source (source.group, else source.key) the
 * fit is redone without its rows and its rows are predicted; that error is
 * what every answer states as its error band. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog/catalog.h"
#include "core/calibration.h"
#include "server/validation_report.h"
#include "server/validation_set.h"

#define MAX_ENTRIES 256
#define HUBER_DELTA 0.15 /* log-error beyond which the loss grows linearly */
#define SHRINK 3.0       /* weight of the pull of a per-accelerator value to the common one */
#define SWEEPS_FULL 8
#define SWEEPS_LOSO 8

static const char *const PARAM_ENUM[CP_N] = {
    "CP_GEMM_EFF", "CP_CONV_EFF", "CP_ATTN_EFF", "CP_TRAIN_EFF", "CP_EXPERT_HALF_TOKENS", "CP_MEM_EFF", "CP_ACT_PASSES_INF",
    "CP_ACT_PASSES_TRAIN", "CP_TF_ACT_PASSES", "CP_LAYER_S", "CP_LAYER_S_Q", "CP_DECODE_LAYER_S", "CP_DECODE_SEQ_S",
    "CP_PREFILL_LAYER_S", "CP_AR_LATENCY_S", "CP_LINK_EFF", "CP_DP_EXPOSED", "CP_PP_INTERLEAVE", "CP_OVERLAP", "CP_PREFILL_OVERLAP",
    "CP_PREC_FP32", "CP_PREC_8BIT", "CP_PREC_4BIT", "CP_FP32_VECTOR",
};

typedef struct {
    vset set;
    double *weight;        /* per measurement; 0 = left out */
    double *pred;          /* current prediction, measured mode */
    calib_entry entries[MAX_ENTRIES];
    char hw_keys[MAX_ENTRIES][128];
    size_t n_entries;
    int **affects;         /* per entry: indices of measurements whose answer reads it */
    int *n_affects;
    calib_table table;
    solver_outputs scratch;
} fit_state;

static double loss_of(double pred, double meas)
{
    if (!(pred > 0) || !isfinite(pred))
        return 100.0;
    double r = fabs(log(pred / meas));
    return r <= HUBER_DELTA ? r * r : HUBER_DELTA * (2.0 * r - HUBER_DELTA);
}

static void use_entries(fit_state *f)
{
    f->table.entries = f->entries;
    f->table.n_entries = f->n_entries;
    calibration_use(&f->table);
}

static double predict(fit_state *f, size_t i)
{
    return vset_predict(&f->set.items[i], CALIBRATION_MEASURED, &f->scratch);
}

/* The global entry of an entry's parameter, for the pull toward it. */
static long global_of(const fit_state *f, size_t e)
{
    for (size_t j = 0; j < f->n_entries; j++)
        if (f->entries[j].param == f->entries[e].param && !f->entries[j].hardware)
            return (long)j;
    return -1;
}

static double shrink_term(const fit_state *f, size_t e)
{
    double s = 0.0;
    calib_param p = f->entries[e].param;
    if (f->entries[e].hardware) {
        long g = global_of(f, e);
        if (g >= 0) {
            double d = log(f->entries[e].value / f->entries[g].value);
            s += SHRINK * d * d;
        }
        return s;
    }
    for (size_t j = 0; j < f->n_entries; j++)
        if (f->entries[j].param == p && f->entries[j].hardware) {
            double d = log(f->entries[j].value / f->entries[e].value);
            s += SHRINK * d * d;
        }
    return s;
}

/* The part of the objective entry e moves. */
static double partial(fit_state *f, size_t e)
{
    double s = shrink_term(f, e);
    for (int k = 0; k < f->n_affects[e]; k++) {
        int i = f->affects[e][k];
        if (f->weight[i] > 0)
            s += f->weight[i] * loss_of(predict(f, (size_t)i), f->set.items[i].measured);
    }
    return s;
}

static double at(fit_state *f, size_t e, double logv)
{
    f->entries[e].value = exp(logv);
    use_entries(f); /* a value changed: drop the cached look-ups */
    return partial(f, e);
}

static void optimise_entry(fit_state *f, size_t e)
{
    const calib_param_desc *d = &CALIB_PARAMS[f->entries[e].param];
    double lo = log(d->lo > 0 ? d->lo : 1e-7), hi = log(d->hi);
    double best_x = log(f->entries[e].value), best = at(f, e, best_x);
    const int grid = 16;
    for (int g = 0; g <= grid; g++) {
        double x = lo + (hi - lo) * g / grid;
        double v = at(f, e, x);
        if (v < best) {
            best = v;
            best_x = x;
        }
    }
    double step = (hi - lo) / grid;
    double a = fmax(lo, best_x - step), b = fmin(hi, best_x + step);
    const double phi = 0.6180339887498949;
    double c = b - phi * (b - a), dd = a + phi * (b - a);
    double fc = at(f, e, c), fd = at(f, e, dd);
    for (int it = 0; it < 30; it++) {
        if (fc < fd) {
            b = dd;
            dd = c;
            fd = fc;
            c = b - phi * (b - a);
            fc = at(f, e, c);
        } else {
            a = c;
            c = dd;
            fc = fd;
            dd = a + phi * (b - a);
            fd = at(f, e, dd);
        }
    }
    double x = fc < fd ? c : dd, v = fmin(fc, fd);
    f->entries[e].value = exp(v < best ? x : best_x);
    use_entries(f);
}

static void fit(fit_state *f, int sweeps)
{
    use_entries(f);
    for (int s = 0; s < sweeps; s++)
        for (size_t e = 0; e < f->n_entries; e++)
            if (f->n_affects[e] > 0)
                optimise_entry(f, e);
}

/* Which measurements read entry e: those whose answer moves when it does. */
static void find_affects(fit_state *f, size_t e, const double *base)
{
    double v = f->entries[e].value;
    f->entries[e].value = v * 1.25;
    use_entries(f);
    int *list = malloc(f->set.n * sizeof *list);
    int n = 0;
    for (size_t i = 0; i < f->set.n; i++) {
        double p = predict(f, i);
        if (!(p == base[i]) && !(isnan(p) && isnan(base[i])))
            list[n++] = (int)i;
    }
    f->entries[e].value = v;
    use_entries(f);
    f->affects[e] = list;
    f->n_affects[e] = n;
    f->entries[e].support = n;
}

static int distinct_groups(const fit_state *f, const int *list, int n)
{
    int count = 0;
    for (int k = 0; k < n; k++) {
        bool seen = false;
        for (int j = 0; j < k && !seen; j++)
            seen = strcmp(f->set.items[list[j]].source_group, f->set.items[list[k]].source_group) == 0;
        count += !seen;
    }
    return count;
}

/* The entries: one common value per parameter, and per accelerator where
 * two or more sources measured it. */
static void choose_entries(fit_state *f, const catalog_edition *ed)
{
    f->n_entries = 0;
    for (int p = 0; p < CP_N; p++)
        f->entries[f->n_entries++] = (calib_entry){.param = (calib_param)p, .value = CALIB_PARAMS[p].start};
    use_entries(f);
    double *base = malloc(f->set.n * sizeof *base);
    for (size_t i = 0; i < f->set.n; i++)
        base[i] = predict(f, i);
    size_t n_global = f->n_entries;
    for (size_t e = 0; e < n_global; e++)
        find_affects(f, e, base);
    const catalog_kind *hwk = catalog_kind_of(REC_HARDWARE);
    for (size_t e = 0; e < n_global; e++) {
        calib_param p = f->entries[e].param;
        if (!CALIB_PARAMS[p].per_hardware || f->n_affects[e] == 0)
            continue;
        for (size_t h = 0; h < edition_count(ed, hwk) && f->n_entries < MAX_ENTRIES; h++) {
            const hw_node *hw = edition_record(ed, hwk, h);
            size_t idx = f->n_entries;
            snprintf(f->hw_keys[idx], sizeof f->hw_keys[idx], "%s", hw->key);
            f->entries[idx] = (calib_entry){.param = p, .hardware = f->hw_keys[idx], .value = CALIB_PARAMS[p].start};
            f->n_entries++;
            use_entries(f);
            find_affects(f, idx, base);
            if (f->n_affects[idx] < 3 || distinct_groups(f, f->affects[idx], f->n_affects[idx]) < 2) {
                free(f->affects[idx]);
                f->affects[idx] = NULL; /* the final clean-up frees every slot */
                f->n_entries--;
            }
        }
    }
    /* A common value reads only the measurements no accelerator entry takes. */
    use_entries(f);
    for (size_t e = 0; e < n_global; e++) {
        free(f->affects[e]);
        find_affects(f, e, base);
    }
    /* A parameter no measurement reads is not fitted: it keeps its
     * descriptor's start value and is not in the table. */
    size_t kept = 0;
    for (size_t e = 0; e < f->n_entries; e++) {
        if (f->n_affects[e] == 0) {
            free(f->affects[e]);
            continue;
        }
        f->entries[kept] = f->entries[e];
        if (f->entries[kept].hardware) {
            memmove(f->hw_keys[kept], f->hw_keys[e], sizeof f->hw_keys[kept]);
            f->entries[kept].hardware = f->hw_keys[kept];
        }
        f->affects[kept] = f->affects[e];
        f->n_affects[kept] = f->n_affects[e];
        kept++;
    }
    for (size_t e = kept; e < f->n_entries; e++) {
        f->affects[e] = NULL;
        f->n_affects[e] = 0;
    }
    f->n_entries = kept;
    use_entries(f);
    free(base);
}

typedef struct {
    double *mlsysim, *measured, *loso;
} predictions;

static calib_stat stat_of(const fit_state *f, const double *pred, int family)
{
    size_t n = 0;
    double *errs = malloc((f->set.n + 1) * sizeof *errs);
    int within = 0;
    for (size_t i = 0; i < f->set.n; i++) {
        if (family >= 0 && f->set.items[i].family != (calib_family)family)
            continue;
        double e = vset_error(pred[i], f->set.items[i].measured);
        errs[n++] = e;
        within += e <= 0.25;
    }
    calib_stat s = {.n = (int)n, .within_25pct = within};
    if (n > 0) {
        for (size_t a = 1; a < n; a++)
            for (size_t b = a; b > 0 && errs[b - 1] > errs[b]; b--) {
                double t = errs[b];
                errs[b] = errs[b - 1];
                errs[b - 1] = t;
            }
        s.median = n % 2 ? errs[n / 2] : 0.5 * (errs[n / 2 - 1] + errs[n / 2]);
        double r = 0.9 * (double)(n - 1); /* linear interpolation between order statistics */
        size_t lo = (size_t)floor(r);
        s.p90 = lo + 1 < n ? errs[lo] + (r - (double)lo) * (errs[lo + 1] - errs[lo]) : errs[lo];
    }
    free(errs);
    return s;
}

static int sources_of(const fit_state *f, int family)
{
    int *list = malloc(f->set.n * sizeof *list);
    int n = 0;
    for (size_t i = 0; i < f->set.n; i++)
        if (family < 0 || f->set.items[i].family == (calib_family)family)
            list[n++] = (int)i;
    int s = distinct_groups(f, list, n);
    free(list);
    return s;
}

static void summarise(fit_state *f, const predictions *pr)
{
    for (int fam = 0; fam < CF_N; fam++) {
        calib_family_stats *s = &f->table.families[fam];
        s->mlsysim = stat_of(f, pr->mlsysim, fam);
        s->measured = stat_of(f, pr->measured, fam);
        s->loso = stat_of(f, pr->loso, fam);
        s->sources = sources_of(f, fam);
    }
    f->table.overall.mlsysim = stat_of(f, pr->mlsysim, -1);
    f->table.overall.measured = stat_of(f, pr->measured, -1);
    f->table.overall.loso = stat_of(f, pr->loso, -1);
    f->table.overall.sources = sources_of(f, -1);
    f->table.measurements = (int)f->set.n;
}

static void set_weights(fit_state *f, const char *left_out)
{
    for (size_t i = 0; i < f->set.n; i++) {
        const vmeasure *m = &f->set.items[i];
        if (left_out && strcmp(m->source_group, left_out) == 0) {
            f->weight[i] = 0.0;
            continue;
        }
        int same = 0;
        for (size_t j = 0; j < f->set.n; j++)
            same += strcmp(f->set.items[j].source_group, m->source_group) == 0 && f->set.items[j].family == m->family;
        f->weight[i] = 1.0 / sqrt((double)same);
    }
    /* Each family weighs the same in total, so the many rows of one family do
     * not set the parameters families share. */
    double total[CF_N] = {0};
    for (size_t i = 0; i < f->set.n; i++)
        total[f->set.items[i].family] += f->weight[i];
    for (size_t i = 0; i < f->set.n; i++)
        if (total[f->set.items[i].family] > 0)
            f->weight[i] *= 10.0 / total[f->set.items[i].family];
}

static void write_fit_c(const fit_state *f, const predictions *pr, FILE *out)
{
    fprintf(out, "/* calibration_fit.c - GENERATED by tools/calibrate from validation/measurements/ (%zu\n"
                 " * measurements); do not edit: `build/calibrate --write` rewrites it. */\n",
            f->set.n);
    fprintf(out, "#include \"core/calibration.h\"\n\n#include <stddef.h>\n\nstatic const calib_entry ENTRIES[] = {\n");
    for (size_t e = 0; e < f->n_entries; e++) {
        const calib_entry *c = &f->entries[e];
        if (c->hardware)
            fprintf(out, "    {%s, \"%s\", %.9g, %d},\n", PARAM_ENUM[c->param], c->hardware, c->value, c->support);
        else
            fprintf(out, "    {%s, NULL, %.9g, %d},\n", PARAM_ENUM[c->param], c->value, c->support);
    }
    fprintf(out, "};\n\nstatic const calib_loso_row LOSO[] = {\n");
    for (size_t i = 0; i < f->set.n; i++)
        fprintf(out, "    {\"%s\", %.9g},\n", f->set.items[i].id, pr->loso[i]);
    fprintf(out, "};\n\n");
#define STAT(s) (s).median, (s).p90, (s).n, (s).within_25pct
    fprintf(out, "const calib_table CALIBRATION_FITTED = {\n    .entries = ENTRIES,\n"
                 "    .n_entries = sizeof ENTRIES / sizeof ENTRIES[0],\n    .families = {\n");
    for (int fam = 0; fam < CF_N; fam++) {
        const calib_family_stats *s = &f->table.families[fam];
        fprintf(out, "        [%d] = {.mlsysim = {%.9g, %.9g, %d, %d}, .measured = {%.9g, %.9g, %d, %d},\n"
                     "               .loso = {%.9g, %.9g, %d, %d}, .sources = %d}, /* %s */\n",
                fam, STAT(s->mlsysim), STAT(s->measured), STAT(s->loso), s->sources, CALIB_FAMILY_NAMES[fam]);
    }
    const calib_family_stats *o = &f->table.overall;
    fprintf(out, "    },\n    .overall = {.mlsysim = {%.9g, %.9g, %d, %d}, .measured = {%.9g, %.9g, %d, %d},\n"
                 "                .loso = {%.9g, %.9g, %d, %d}, .sources = %d},\n",
            STAT(o->mlsysim), STAT(o->measured), STAT(o->loso), o->sources);
#undef STAT
    fprintf(out, "    .measurements = %zu,\n    .loso = LOSO,\n    .n_loso = sizeof LOSO / sizeof LOSO[0],\n};\n",
            f->set.n);
}

static char *slurp(const char *path)
{
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return NULL;
    fseek(fp, 0, SEEK_END);
    long n = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    size_t got = fread(s, 1, (size_t)n, fp);
    s[got] = '\0';
    fclose(fp);
    return s;
}

/* Write `text` to path, or (check) compare with what is there. */
static int emit(const char *path, const char *text, bool check)
{
    if (check) {
        char *have = slurp(path);
        int same = have && strcmp(have, text) == 0;
        free(have);
        if (!same)
            fprintf(stderr, "calibrate: %s is not what the measurements give: run `calibrate --write`\n", path);
        return same ? 0 : 1;
    }
    FILE *fp = fopen(path, "w");
    if (!fp) {
        fprintf(stderr, "calibrate: cannot write %s\n", path);
        return 1;
    }
    fputs(text, fp);
    fclose(fp);
    return 0;
}

static char *memstream_text(void (*fill)(const fit_state *, const predictions *, FILE *), const fit_state *f,
                            const predictions *pr)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    fill(f, pr, m);
    fclose(m);
    return buf;
}

static void write_doc(const fit_state *f, const predictions *pr, FILE *out)
{
    validation_report_markdown(&f->set, &f->table, pr->mlsysim, pr->measured, pr->loso, out);
}

int main(int argc, char **argv)
{
    const char *root = ".", *dir = NULL, *dump = NULL;
    bool write = false, check = false;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--write") == 0)
            write = true;
        else if (strcmp(argv[i], "--check") == 0)
            check = true;
        else if (strcmp(argv[i], "--root") == 0 && i + 1 < argc)
            root = argv[++i];
        else if (strcmp(argv[i], "--measurements") == 0 && i + 1 < argc)
            dir = argv[++i];
        else if (strcmp(argv[i], "--dump") == 0 && i + 1 < argc)
            dump = argv[++i];
        else {
            fprintf(stderr, "usage: calibrate [--root DIR] [--measurements DIR] [--dump FILE.tsv] [--write | --check]\n");
            return 2;
        }
    }
    char dirbuf[1024];
    if (!dir) {
        snprintf(dirbuf, sizeof dirbuf, "%s/validation/measurements", root);
        dir = dirbuf;
    }
    catalog *cat;
    char err[1024];
    if (catalog_load(&cat, NULL, err, sizeof err) != 0) {
        fprintf(stderr, "calibrate: catalog: %s\n", err);
        return 1;
    }
    const catalog_edition *ed = catalog_default_edition(cat);
    fit_state f = {0};
    if (vset_load_dir(&f.set, dir, ed, err, sizeof err) != 0) {
        fprintf(stderr, "calibrate: %s\n", err);
        return 1;
    }
    size_t n = f.set.n;
    f.weight = calloc(n, sizeof *f.weight);
    f.pred = calloc(n, sizeof *f.pred);
    f.affects = calloc(MAX_ENTRIES, sizeof *f.affects);
    f.n_affects = calloc(MAX_ENTRIES, sizeof *f.n_affects);
    predictions pr = {calloc(n, sizeof(double)), calloc(n, sizeof(double)), calloc(n, sizeof(double))};

    for (size_t i = 0; i < n; i++)
        pr.mlsysim[i] = vset_predict(&f.set.items[i], CALIBRATION_MLSYSIM, &f.scratch);
    choose_entries(&f, ed);
    set_weights(&f, NULL);
    fit(&f, SWEEPS_FULL);
    for (size_t i = 0; i < n; i++)
        pr.measured[i] = predict(&f, i);
    calib_entry full[MAX_ENTRIES];
    memcpy(full, f.entries, sizeof full);

    /* Leave each source out in turn. */
    for (size_t i = 0; i < n; i++) {
        const char *g = f.set.items[i].source_group;
        bool done = false;
        for (size_t j = 0; j < i && !done; j++)
            done = strcmp(f.set.items[j].source_group, g) == 0;
        if (done)
            continue;
        memcpy(f.entries, full, sizeof full);
        set_weights(&f, g);
        fit(&f, SWEEPS_LOSO);
        for (size_t k = 0; k < n; k++)
            if (strcmp(f.set.items[k].source_group, g) == 0)
                pr.loso[k] = predict(&f, k);
    }
    memcpy(f.entries, full, sizeof full);
    use_entries(&f);
    summarise(&f, &pr);

    printf("%-14s %5s %4s  %-22s %-22s %-22s\n", "family", "n", "src", "mlsysim med/p90", "measured med/p90",
           "LOSO med/p90 (<=25%)");
    for (int fam = 0; fam <= CF_N; fam++) {
        const calib_family_stats *s = fam < CF_N ? &f.table.families[fam] : &f.table.overall;
        printf("%-14s %5d %4d  %9.3f %9.3f   %9.3f %9.3f   %9.3f %9.3f (%d)\n",
               fam < CF_N ? CALIB_FAMILY_NAMES[fam] : "overall", s->loso.n, s->sources, s->mlsysim.median,
               s->mlsysim.p90, s->measured.median, s->measured.p90, s->loso.median, s->loso.p90, s->loso.within_25pct);
    }
    for (size_t e = 0; e < f.n_entries; e++)
        printf("  %-28s %-14s %12.6g  (%d)\n", CALIB_PARAMS[f.entries[e].param].name,
               f.entries[e].hardware ? f.entries[e].hardware : (CALIB_PARAMS[f.entries[e].param].precision
                                                                     ? CALIB_PARAMS[f.entries[e].param].precision
                                                                     : "*"),
               f.entries[e].value, f.entries[e].support);

    if (dump) {
        FILE *fp = fopen(dump, "w");
        for (size_t i = 0; fp && i < n; i++) {
            const vmeasure *m = &f.set.items[i];
            char *req = json_dumps(json_object_get(m->record, "request"), JSON_COMPACT);
            fprintf(fp, "%s\t%s\t%s\t%s\t%g\t%g\t%g\t%g\t%s\n", m->id, CALIB_FAMILY_NAMES[m->family],
                    m->source_group, m->solver->outputs[m->output].name, m->measured, pr.mlsysim[i], pr.measured[i],
                    pr.loso[i], req);
            free(req);
        }
        if (fp)
            fclose(fp);
    }
    int rc = 0;
    if (check) {
        const calib_table *rec = &CALIBRATION_FITTED;
        for (int fam = 0; fam < CF_N; fam++)
            if (f.table.families[fam].loso.median > rec->families[fam].loso.median * (1 + 1e-6) + 1e-9) {
                fprintf(stderr, "calibrate: %s: leave-one-source-out median %.4f is above the recorded %.4f\n",
                        CALIB_FAMILY_NAMES[fam], f.table.families[fam].loso.median, rec->families[fam].loso.median);
                rc = 1;
            }
    }
    if (write || check) {
        char path[1200];
        char *c_text = memstream_text(write_fit_c, &f, &pr);
        snprintf(path, sizeof path, "%s/core/calibration_fit.c", root);
        rc |= emit(path, c_text, check);
        free(c_text);
        char *doc = memstream_text(write_doc, &f, &pr);
        snprintf(path, sizeof path, "%s/docs/validation.md", root);
        rc |= emit(path, doc, check);
        free(doc);
    }
    calibration_use(NULL);
    for (size_t e = 0; e < MAX_ENTRIES; e++)
        free(f.affects[e]);
    free(f.affects);
    free(f.n_affects);
    free(f.weight);
    free(f.pred);
    free(pr.mlsysim);
    free(pr.measured);
    free(pr.loso);
    vset_free(&f.set);
    catalog_free(cat);
    if (check)
        printf(rc ? "calibrate --check: FAILED (see above)\n"
                  : "calibrate --check: the fit, its error and the committed files agree\n");
    return rc;
}
