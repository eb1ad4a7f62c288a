/* plan_cli.h - `mlsysd eval PLAN` (a plan evaluated without a server,
 * through POST /evaluate's handler, with mlsysim's exit codes: 0 pass,
 * 1 invalid plan, 2 infeasible, 3 an assertion failed) and `mlsysd schema`
 * (the plan's JSON Schema on stdout). cli.c's command table names them. */
#ifndef MLSYSD_PLAN_CLI_H
#define MLSYSD_PLAN_CLI_H

/* argv[0] is the command's name; returns the exit code. */
int plan_cli_eval(int argc, char **argv);
int plan_cli_schema(int argc, char **argv);

#endif
