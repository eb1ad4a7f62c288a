/* app_fixture.h - the app as the daemon serves it (the embedded catalog,
 * default settings, ready), without sockets: for the unit tests that send
 * requests through app_handle (test_solve_writer.c, test_sweep_stream.c,
 * test_body_scan.c). Use app_fixture_setup / app_fixture_teardown as a
 * Criterion test's .init / .fini; each test runs in its own process. */
#ifndef MLSYSD_APP_FIXTURE_H
#define MLSYSD_APP_FIXTURE_H

#include "server/app.h"

extern catalog *fixture_catalog;
extern app fixture_app;

void app_fixture_setup(void);
void app_fixture_teardown(void);

#endif
