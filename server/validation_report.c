/* validation_report.c - see validation_report.h. */
#include "server/validation_report.h"

#include <math.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define BASIS_MEASURED "leave-one-source-out error of measured mode over the published measurements (GET /validation)"
#define BASIS_MLSYSIM "error of mlsysim's defaults over the published measurements (GET /validation)"
#define NO_BAND_MLSYSIM "first-order: no published measurement in the project checks this solver's answers, and " \
                        "the reference model states no error band"
#define NO_BAND_MEASURED "no published measurement in the project checks this solver's answers: measured mode " \
                         "answers as mlsysim does here"

/* --- error bands ----------------------------------------------------------------- */

static const calib_stat *band_stat(const calib_table *t, int family, calibration_mode mode)
{
    const calib_family_stats *s = &t->families[family];
    return mode == CALIBRATION_MEASURED ? &s->loso : &s->mlsysim;
}

json_t *error_band_json(const solver_desc *d, const solver_inputs *in, calibration_mode mode)
{
    const calib_table *t = calibration_table();
    solver_band bands[SOLVER_MAX_BANDS];
    int n = d->measured_families ? d->measured_families(in, bands) : 0;
    json_t *o = json_object();
    json_object_set_new(o, "calibration", json_string(CALIBRATION_MODES[mode]));
    json_t *arr = json_array();
    for (int i = 0; i < n; i++) {
        const calib_stat *s = band_stat(t, bands[i].family, mode);
        json_t *outs = json_array();
        for (int k = 0; bands[i].outputs[k]; k++)
            json_array_append_new(outs, json_string(bands[i].outputs[k]));
        json_array_append_new(arr, json_pack("{s:s,s:s,s:o,s:f,s:f,s:i,s:i}", "family",
                                             CALIB_FAMILY_NAMES[bands[i].family], "title",
                                             CALIB_FAMILY_TITLES[bands[i].family], "outputs", outs, "median",
                                             s->median, "p90", s->p90, "n", s->n, "sources",
                                             t->families[bands[i].family].sources));
    }
    json_object_set_new(o, "basis", json_string(n == 0                          ? (mode == CALIBRATION_MEASURED
                                                                                      ? NO_BAND_MEASURED
                                                                                      : NO_BAND_MLSYSIM)
                                                : mode == CALIBRATION_MEASURED ? BASIS_MEASURED
                                                                               : BASIS_MLSYSIM));
    json_object_set_new(o, "bands", arr);
    return o;
}

static void band_write(strbuf *b, const calib_table *t, const solver_band *bands, int n, calibration_mode mode)
{
    sb_puts(b, "{\"calibration\":");
    sb_json_string(b, CALIBRATION_MODES[mode]);
    sb_puts(b, ",\"basis\":");
    sb_json_string(b, n == 0 ? (mode == CALIBRATION_MEASURED ? NO_BAND_MEASURED : NO_BAND_MLSYSIM)
                             : mode == CALIBRATION_MEASURED ? BASIS_MEASURED : BASIS_MLSYSIM);
    sb_puts(b, ",\"bands\":[");
    for (int i = 0; i < n; i++) {
        const calib_stat *s = band_stat(t, bands[i].family, mode);
        sb_puts(b, i ? ",{\"family\":" : "{\"family\":");
        sb_json_string(b, CALIB_FAMILY_NAMES[bands[i].family]);
        sb_puts(b, ",\"title\":");
        sb_json_string(b, CALIB_FAMILY_TITLES[bands[i].family]);
        sb_puts(b, ",\"outputs\":[");
        for (int k = 0; bands[i].outputs[k]; k++) {
            if (k)
                sb_putc(b, ',');
            sb_json_string(b, bands[i].outputs[k]);
        }
        sb_puts(b, "],\"median\":");
        sb_number(b, s->median);
        sb_puts(b, ",\"p90\":");
        sb_number(b, s->p90);
        sb_printf(b, ",\"n\":%d,\"sources\":%d}", s->n, t->families[bands[i].family].sources);
    }
    sb_puts(b, "]}");
}

/* The band's text is the same for every answer with the same (mode, bands)
 * (a band's outputs are static lists in the solvers' files, so their address
 * is their identity):
 * with the build's fitted table, it is written once per such key and kept, in
 * a table that only grows (each slot set once, by compare-and-swap). A trial
 * table (calibration_use) is written per answer. */
typedef struct {
    calibration_mode mode;
    int n;
    solver_band bands[SOLVER_MAX_BANDS];
    size_t len;
    char text[];
} band_text;

#define BAND_SLOTS 64
static _Atomic(band_text *) g_bands[BAND_SLOTS];

static bool band_key_eq(const band_text *e, const solver_band *bands, int n, calibration_mode mode)
{
    if (e->mode != mode || e->n != n)
        return false;
    for (int i = 0; i < n; i++)
        if (e->bands[i].family != bands[i].family || e->bands[i].outputs != bands[i].outputs)
            return false;
    return true;
}

static size_t band_hash(const solver_band *bands, int n, calibration_mode mode)
{
    unsigned long long h = 0x9e3779b97f4a7c15ULL * (unsigned long long)(mode + 1) + (unsigned long long)n;
    for (int i = 0; i < n; i++) {
        h = (h ^ (unsigned long long)bands[i].family) * 0x100000001b3ULL;
        h = (h ^ (unsigned long long)(uintptr_t)bands[i].outputs) * 0x100000001b3ULL;
        h ^= h >> 29;
    }
    return (size_t)h;
}

void error_band_write(strbuf *b, const solver_desc *d, const solver_inputs *in, calibration_mode mode)
{
    const calib_table *t = calibration_table();
    solver_band bands[SOLVER_MAX_BANDS];
    int n = d->measured_families ? d->measured_families(in, bands) : 0;
    if (t != &CALIBRATION_FITTED || n < 0 || n > SOLVER_MAX_BANDS) {
        band_write(b, t, bands, n, mode);
        return;
    }
    size_t h = band_hash(bands, n, mode);
    for (size_t k = 0; k < BAND_SLOTS; k++) {
        _Atomic(band_text *) *slot = &g_bands[(h + k) % BAND_SLOTS];
        band_text *e = atomic_load_explicit(slot, memory_order_acquire);
        if (!e) {
            strbuf tb;
            sb_init(&tb);
            band_write(&tb, t, bands, n, mode);
            band_text *mine = tb.oom ? NULL : malloc(sizeof *mine + tb.len + 1);
            if (!mine) {
                sb_free(&tb);
                break;
            }
            mine->mode = mode;
            mine->n = n;
            memcpy(mine->bands, bands, sizeof bands[0] * (size_t)n);
            mine->len = tb.len;
            memcpy(mine->text, tb.data, tb.len + 1);
            sb_free(&tb);
            band_text *expected = NULL;
            if (atomic_compare_exchange_strong_explicit(slot, &expected, mine, memory_order_acq_rel,
                                                        memory_order_acquire))
                e = mine;
            else {
                free(mine); /* another thread took the slot: read what it put */
                e = expected;
            }
        }
        if (band_key_eq(e, bands, n, mode)) {
            sb_append(b, e->text, e->len);
            return;
        }
    }
    band_write(b, t, bands, n, mode); /* the table is full (it never should be) */
}

/* --- GET /calibration ------------------------------------------------------------ */

json_t *calibration_report_json(const calib_table *t)
{
    json_t *params = json_array();
    for (size_t i = 0; i < t->n_entries; i++) {
        const calib_entry *e = &t->entries[i];
        const calib_param_desc *d = &CALIB_PARAMS[e->param];
        json_t *key = json_pack("{s:o,s:o}", "hardware", e->hardware ? json_string(e->hardware) : json_null(),
                                "precision", d->precision ? json_string(d->precision) : json_null());
        json_array_append_new(params, json_pack("{s:s,s:s,s:o,s:f,s:s,s:s,s:i,s:[f,f]}", "name", d->name, "work",
                                                d->work, "key", key, "value", e->value, "unit", d->unit, "meaning",
                                                d->meaning, "support", e->support, "bounds", d->lo, d->hi));
    }
    /* Parameters no measurement reads: not fitted, they answer with their start value. */
    json_t *unfitted = json_array();
    for (int p = 0; p < CP_N; p++) {
        bool fitted = false;
        for (size_t i = 0; i < t->n_entries && !fitted; i++)
            fitted = t->entries[i].param == (calib_param)p && !t->entries[i].hardware;
        if (fitted)
            continue;
        const calib_param_desc *d = &CALIB_PARAMS[p];
        json_array_append_new(unfitted, json_pack("{s:s,s:s,s:{s:n,s:o},s:f,s:s,s:s}", "name", d->name, "work",
                                                  d->work, "key", "hardware", "precision",
                                                  d->precision ? json_string(d->precision) : json_null(), "value",
                                                  d->start, "unit", d->unit, "meaning", d->meaning));
    }
    return json_pack("{s:s,s:s,s:i,s:o,s:o}", "generated_by",
                     "tools/calibrate, from validation/measurements/*.jsonl (core/calibration_fit.c)", "fit",
                     "robust least squares of log(predicted / measured), each source's rows weighted by "
                     "1/sqrt(their count); a value per accelerator only where two or more sources measured it, "
                     "pulled toward the common value",
                     "measurements", t->measurements, "parameters", params, "unfitted", unfitted);
}

/* --- GET /validation ------------------------------------------------------------- */

static json_t *stat_json(const calib_stat *s)
{
    return json_pack("{s:f,s:f,s:i,s:i}", "median", s->median, "p90", s->p90, "n", s->n, "within_25pct",
                     s->within_25pct);
}

static json_t *family_json(const char *name, const char *title, const calib_family_stats *f)
{
    json_t *o = json_pack("{s:i,s:i,s:o,s:o,s:o}", "n", f->loso.n, "sources", f->sources, "mlsysim",
                          stat_json(&f->mlsysim), "measured", stat_json(&f->measured), "measured_loso",
                          stat_json(&f->loso));
    if (name) {
        json_object_set_new(o, "family", json_string(name));
        json_object_set_new(o, "title", json_string(title));
    }
    return o;
}

static double loso_of(const calib_table *t, const char *id)
{
    for (size_t i = 0; i < t->n_loso; i++)
        if (strcmp(t->loso[i].id, id) == 0)
            return t->loso[i].predicted;
    return NAN;
}

static json_t *num_or_null(double v) { return isfinite(v) ? json_real(v) : json_null(); }

json_t *validation_report_json(vset *s, const calib_table *t, solver_outputs *scratch)
{
    json_t *families = json_array();
    for (int f = 0; f < CF_N; f++)
        json_array_append_new(families, family_json(CALIB_FAMILY_NAMES[f], CALIB_FAMILY_TITLES[f], &t->families[f]));
    json_t *rows = json_array();
    for (size_t i = 0; i < s->n; i++) {
        vmeasure *m = &s->items[i];
        double meas = m->measured;
        double p[3] = {vset_predict(m, CALIBRATION_MLSYSIM, scratch), vset_predict(m, CALIBRATION_MEASURED, scratch),
                       loso_of(t, m->id)};
        static const char *const KEYS[3] = {"mlsysim", "measured", "measured_loso"};
        json_t *pred = json_object(), *ratio = json_object(), *error = json_object();
        for (int k = 0; k < 3; k++) {
            json_object_set_new(pred, KEYS[k], num_or_null(p[k]));
            json_object_set_new(ratio, KEYS[k], num_or_null(p[k] / meas));
            json_object_set_new(error, KEYS[k], num_or_null(vset_error(p[k], meas)));
        }
        json_t *row = json_deep_copy(m->record);
        json_object_set_new(row, "predicted", pred);
        json_object_set_new(row, "ratio", ratio);
        json_object_set_new(row, "error", error);
        json_array_append_new(rows, row);
    }
    return json_pack("{s:s,s:o,s:o,s:o}", "error",
                     "max(predicted / measured, measured / predicted) - 1; measured_loso predicts each source with "
                     "parameters fitted without it",
                     "families", families, "overall", family_json(NULL, NULL, &t->overall), "measurements", rows);
}

/* --- docs/validation.md ------------------------------------------------------------ */

static void pct(FILE *out, double e)
{
    if (!isfinite(e))
        fputs("—", out);
    else
        fprintf(out, "%.0f %%", e * 100.0);
}

static void sig(FILE *out, double v)
{
    if (!isfinite(v))
        fputs("—", out);
    else if (fabs(v) >= 100)
        fprintf(out, "%.0f", v);
    else
        fprintf(out, "%.3g", v);
}

static const char *setting_str(const json_t *rec, char *buf, size_t n)
{
    const json_t *st = json_object_get(rec, "setting");
    const json_t *in = json_object_get(json_object_get(rec, "request"), "inputs");
    const char *model = json_string_value(json_object_get(in, "model"));
    const char *hw = json_string_value(json_object_get(in, "hardware"));
    if (!model)
        model = json_string_value(json_object_get(st, "model"));
    if (!hw)
        hw = json_string_value(json_object_get(st, "hardware"));
    const char *prec = json_string_value(json_object_get(st, "precision"));
    json_int_t acc = json_integer_value(json_object_get(st, "accelerators"));
    json_int_t batch = json_integer_value(json_object_get(st, "batch_size"));
    json_int_t seq = json_integer_value(json_object_get(st, "seq_len"));
    if (!seq)
        seq = json_integer_value(json_object_get(st, "input_len"));
    json_int_t tp = json_integer_value(json_object_get(st, "tp"));
    json_int_t pp = json_integer_value(json_object_get(st, "pp"));
    int len = snprintf(buf, n, "%s, %lld × %s, %s, batch %lld", model ? model : "?", (long long)(acc ? acc : 1),
                       hw ? hw : "?", prec ? prec : "?", (long long)batch);
    if (seq && len > 0 && (size_t)len < n)
        len += snprintf(buf + len, n - (size_t)len, ", seq %lld", (long long)seq);
    if ((tp > 1 || pp > 1) && len > 0 && (size_t)len < n)
        snprintf(buf + len, n - (size_t)len, ", tp %lld pp %lld", (long long)tp, (long long)(pp ? pp : 1));
    return buf;
}

static void source_link(FILE *out, const json_t *rec)
{
    const json_t *src = json_object_get(rec, "source");
    const char *key = json_string_value(json_object_get(src, "key"));
    const char *url = json_string_value(json_object_get(src, "url"));
    const char *repo = json_string_value(json_object_get(src, "repo"));
    const char *path = json_string_value(json_object_get(src, "path"));
    if (url)
        fprintf(out, "[%s](%s)", key, url);
    else if (repo && path)
        fprintf(out, "[%s](https://github.com/%s/blob/HEAD/%s)", key, repo, path);
    else
        fprintf(out, "%s", key);
}

void validation_report_markdown(const vset *s, const calib_table *t, const double *mlsysim, const double *measured,
                                const double *loso, FILE *out)
{
    fputs("# Held against published measurements\n\n"
          "<!-- GENERATED by tools/calibrate from validation/measurements/ (`build/calibrate --write`); "
          "CI checks it is current. Do not edit. -->\n\n",
          out);
    fprintf(out,
            "mlsysd answers in two modes. **mlsysim** (the default) is mlsysim's first-order model, exactly. "
            "**measured** (`\"calibration\": \"measured\"`) adds the physics the first-order model leaves out "
            "and takes the inputs a client did not give from parameters fitted to %d published measurements "
            "from %d sources (`validation/measurements/`, format in `validation/README.md`). This page puts "
            "both modes next to every measurement.\n\n",
            t->measurements, t->overall.sources);
    fputs("The error of one answer is max(predicted / measured, measured / predicted) − 1. *Fitted* is "
          "measured mode with the parameters fitted on every measurement; *held out* predicts each source's "
          "measurements with parameters fitted **without** that source (leave-one-source-out), which is the "
          "error to expect on a setting no source here covers, and the `error_band` every answer states. "
          "`GET /validation` serves the same data with each measurement's request; the dashboard's Validation "
          "view plots it.\n\n",
          out);
    fputs("## Error per family\n\n"
          "| family | n | sources | mlsysim median | mlsysim p90 | fitted median | held-out median | held-out p90 "
          "| held out within 25 % |\n|---|---|---|---|---|---|---|---|---|\n",
          out);
    for (int f = 0; f <= CF_N; f++) {
        const calib_family_stats *st = f < CF_N ? &t->families[f] : &t->overall;
        fprintf(out, "| %s | %d | %d | ", f < CF_N ? CALIB_FAMILY_TITLES[f] : "**all**", st->loso.n, st->sources);
        pct(out, st->mlsysim.median);
        fputs(" | ", out);
        pct(out, st->mlsysim.p90);
        fputs(" | ", out);
        pct(out, st->measured.median);
        fputs(" | ", out);
        pct(out, st->loso.median);
        fputs(" | ", out);
        pct(out, st->loso.p90);
        fprintf(out, " | %d of %d |\n", st->loso.within_25pct, st->loso.n);
    }
    fputs("\n## The fitted parameters\n\n"
          "Each is keyed at most by accelerator and by precision class, never by model or batch size; `support` "
          "counts the measurements whose answer reads it. `GET /calibration` serves this table.\n\n"
          "| parameter | kind of work | key | value | support | meaning |\n|---|---|---|---|---|---|\n",
          out);
    for (size_t i = 0; i < t->n_entries; i++) {
        const calib_entry *e = &t->entries[i];
        const calib_param_desc *d = &CALIB_PARAMS[e->param];
        fprintf(out, "| `%s` | %s | %s | ", d->name, d->work,
                e->hardware ? e->hardware : d->precision ? d->precision : "any other accelerator");
        sig(out, strcmp(d->unit, "s") == 0 ? e->value * 1e6 : e->value);
        fprintf(out, "%s | %d | %s |\n", strcmp(d->unit, "s") == 0 ? " µs" : "", e->support, d->meaning);
    }
    for (int f = 0; f < CF_N; f++) {
        fprintf(out, "\n## %s\n\n| measurement | setting | output | measured | mlsysim | fitted | held out | source |\n"
                     "|---|---|---|---|---|---|---|---|\n",
                CALIB_FAMILY_TITLES[f]);
        for (size_t i = 0; i < s->n; i++) {
            const vmeasure *m = &s->items[i];
            if (m->family != (calib_family)f)
                continue;
            char setting[256];
            const output_desc *od = &m->solver->outputs[m->output];
            fprintf(out, "| `%s` | %s | %s (%s) | ", m->id, setting_str(m->record, setting, sizeof setting),
                    od->name, od->unit[0] ? od->unit : "1");
            sig(out, m->measured);
            fputs(" | ", out);
            sig(out, mlsysim[i]);
            fputs(" | ", out);
            sig(out, measured[i]);
            fputs(" | ", out);
            sig(out, loso[i]);
            fputs(" | ", out);
            source_link(out, m->record);
            fputs(" |\n", out);
        }
    }
}
