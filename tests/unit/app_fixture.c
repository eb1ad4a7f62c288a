/* app_fixture.c - see app_fixture.h. */
#include "app_fixture.h"

#include <criterion/criterion.h>
#include <stdatomic.h>

catalog *fixture_catalog;
app fixture_app;
static config fixture_cfg;

void app_fixture_setup(void)
{
    char err[300];
    cr_assert_eq(catalog_load(&fixture_catalog, NULL, err, sizeof err), 0, "catalog_load: %s", err);
    config_defaults(&fixture_cfg);
    cr_assert_eq(app_init(&fixture_app, fixture_catalog, &fixture_cfg, err, sizeof err), 0, "app_init: %s", err);
    atomic_store(&fixture_app.ready, true);
}

void app_fixture_teardown(void)
{
    app_free(&fixture_app);
    catalog_free(fixture_catalog);
}
