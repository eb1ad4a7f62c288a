/* plan_report.h - an evaluation (the answer of POST /evaluate, plan.h) for
 * people and for CI: a table, and JUnit XML with one test case per
 * assertion (and one per infeasible scenario), the actual and the expected
 * values in each failure's message. Called by plan_cli.c. */
#ifndef MLSYSD_PLAN_REPORT_H
#define MLSYSD_PLAN_REPORT_H

#include <jansson.h>
#include <stdio.h>

/* The evaluation as a table on f. */
void plan_report_table(const json_t *answer, FILE *f);
/* The evaluation as JUnit XML on f; 0, or -1 on a write error. */
int plan_report_junit(const json_t *answer, FILE *f);

#endif
