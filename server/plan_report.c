/* plan_report.c - an evaluation as a table and as JUnit XML (contract in plan_report.h). */
#include "server/plan_report.h"

#include <math.h>
#include <stdlib.h>
#include <stdbool.h>
#include <string.h>
#include <strings.h>

/* A value as people read it: "23.4 ms", "true", "\"memory\"", "null". */
static void value_text(const json_t *v, const char *unit, char *buf, size_t n)
{
    if (json_is_number(v))
        snprintf(buf, n, "%.6g%s%s", json_number_value(v), unit && *unit ? " " : "", unit ? unit : "");
    else if (json_is_boolean(v))
        snprintf(buf, n, "%s", json_is_true(v) ? "true" : "false");
    else if (json_is_string(v))
        snprintf(buf, n, "\"%s\"", json_string_value(v));
    else
        snprintf(buf, n, "not available");
}

static const char *str(const json_t *o, const char *k)
{
    const char *s = json_string_value(json_object_get(o, k));
    return s ? s : "";
}

static void upper(const char *s, char *buf, size_t n)
{
    size_t i = 0;
    for (; s[i] && i + 1 < n; i++)
        buf[i] = (char)(s[i] >= 'a' && s[i] <= 'z' ? s[i] - 32 : s[i]);
    buf[i] = '\0';
}

void plan_report_table(const json_t *answer, FILE *f)
{
    const json_t *sum = json_object_get(answer, "summary");
    char st[16];
    upper(str(answer, "status"), st, sizeof st);
    fprintf(f, "plan %s: %s (%lld scenarios: %lld passed, %lld failed, %lld infeasible; %lld of %lld assertions held)\n",
            str(answer, "plan"), st, json_integer_value(json_object_get(sum, "scenarios")),
            json_integer_value(json_object_get(sum, "passed")), json_integer_value(json_object_get(sum, "failed")),
            json_integer_value(json_object_get(sum, "infeasible")),
            json_integer_value(json_object_get(sum, "assertions")) -
                json_integer_value(json_object_get(sum, "assertions_failed")),
            json_integer_value(json_object_get(sum, "assertions")));
    size_t i;
    json_t *sc;
    json_array_foreach(json_object_get(answer, "scenarios"), i, sc) {
        upper(str(sc, "status"), st, sizeof st);
        fprintf(f, "  %-10s %s (%s, %s)\n", st, str(sc, "name"), str(sc, "kind"), str(sc, "solver"));
        if (json_object_get(sc, "infeasible_reason"))
            fprintf(f, "             infeasible: %s\n", str(sc, "infeasible_reason"));
        const json_t *levels = json_object_get(sc, "levels");
        const char *ln;
        json_t *l;
        json_object_foreach((json_t *)levels, ln, l) fprintf(f, "             %-12s %-8s %s\n", ln, str(l, "status"),
                                                             str(l, "summary"));
        size_t k;
        json_t *as;
        json_array_foreach(json_object_get(sc, "assertions"), k, as) {
            char actual[120];
            value_text(json_object_get(as, "actual"), str(as, "unit"), actual, sizeof actual);
            bool ok = json_is_true(json_object_get(as, "passed"));
            fprintf(f, "             %-4s %-44s actual %s", ok ? "ok" : "FAIL", str(as, "expression"), actual);
            if (json_object_get(as, "point")) {
                char *pt = json_dumps(json_object_get(as, "point"), JSON_COMPACT);
                fprintf(f, " at %s", pt ? pt : "?");
                free(pt);
            }
            if (json_object_get(as, "point_error"))
                fprintf(f, " (%s)", str(as, "point_error"));
            fputc('\n', f);
        }
    }
}

static void xml_escaped(FILE *f, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '&': fputs("&amp;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\n': fputs("&#10;", f); break;
        default:
            if ((unsigned char)*s < 0x20 && *s != '\t')
                fputc('?', f);
            else
                fputc(*s, f);
        }
    }
}

int plan_report_junit(const json_t *answer, FILE *f)
{
    const json_t *scs = json_object_get(answer, "scenarios");
    long long tests = 0, failures = 0;
    size_t i, k;
    json_t *sc, *as;
    json_array_foreach(scs, i, sc) {
        bool infeasible = !strcmp(str(sc, "status"), "infeasible");
        tests += (long long)json_array_size(json_object_get(sc, "assertions")) + infeasible;
        failures += infeasible;
        json_array_foreach(json_object_get(sc, "assertions"), k, as) failures += !json_is_true(json_object_get(as, "passed"));
    }
    fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"mlsysd eval ", f);
    xml_escaped(f, str(answer, "plan"));
    fprintf(f, "\" tests=\"%lld\" failures=\"%lld\" errors=\"0\">\n", tests, failures);
    json_array_foreach(scs, i, sc) {
        const json_t *list = json_object_get(sc, "assertions");
        bool infeasible = !strcmp(str(sc, "status"), "infeasible");
        long long n = (long long)json_array_size(list) + infeasible, fails = infeasible;
        json_array_foreach(list, k, as) fails += !json_is_true(json_object_get(as, "passed"));
        fputs("  <testsuite name=\"", f);
        xml_escaped(f, str(answer, "plan"));
        fputc('/', f);
        xml_escaped(f, str(sc, "name"));
        fprintf(f, "\" tests=\"%lld\" failures=\"%lld\" errors=\"0\">\n", n, fails);
        if (infeasible) {
            fputs("    <testcase classname=\"", f);
            xml_escaped(f, str(answer, "plan"));
            fputc('.', f);
            xml_escaped(f, str(sc, "name"));
            fputs("\" name=\"feasible\">\n      <failure type=\"infeasible\" message=\"", f);
            xml_escaped(f, str(sc, "infeasible_reason"));
            fputs("\"/>\n    </testcase>\n", f);
        }
        json_array_foreach(list, k, as) {
            fputs("    <testcase classname=\"", f);
            xml_escaped(f, str(answer, "plan"));
            fputc('.', f);
            xml_escaped(f, str(sc, "name"));
            fputs("\" name=\"", f);
            xml_escaped(f, str(as, "expression"));
            fputc('"', f);
            if (json_is_true(json_object_get(as, "passed"))) {
                fputs("/>\n", f);
                continue;
            }
            char actual[120], msg[600];
            value_text(json_object_get(as, "actual"), str(as, "unit"), actual, sizeof actual);
            if (json_object_get(as, "message"))
                snprintf(msg, sizeof msg, "%s (expected %s)", str(as, "message"), str(as, "expression"));
            else
                snprintf(msg, sizeof msg, "actual %s, expected %s", actual, str(as, "expression"));
            fputs(">\n      <failure type=\"assertion\" message=\"", f);
            xml_escaped(f, msg);
            fputs("\">", f);
            char *pt = json_object_get(as, "point") ? json_dumps(json_object_get(as, "point"), JSON_COMPACT) : NULL;
            if (pt) {
                fputs("at ", f);
                xml_escaped(f, pt);
                free(pt);
            }
            fputs("</failure>\n    </testcase>\n", f);
        }
        fputs("  </testsuite>\n", f);
    }
    fputs("</testsuites>\n", f);
    return ferror(f) ? -1 : 0;
}
