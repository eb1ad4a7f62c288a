/* validation_routes.c - see validation_routes.h. The measurements are the
 * files compiled into the binary, read against the default catalog edition. */
#include "server/validation_routes.h"

#include "server/reply.h"
#include "server/validation_report.h"
#include "server/validation_set.h"

void handle_calibration(app *a, const app_request *req, app_response *resp, const char *param)
{
    (void)a, (void)req, (void)param;
    reply_json(resp, calibration_report_json(calibration_table()));
}

void handle_validation(app *a, const app_request *req, app_response *resp, const char *param)
{
    (void)param;
    vset set = {0};
    char err[1024];
    if (vset_load_embedded(&set, catalog_default_edition(a->cat), err, sizeof err) != 0) {
        vset_free(&set);
        reply_fail(resp, req, 500, "internal", NULL, err);
        return;
    }
    static _Thread_local solver_outputs scratch;
    reply_json(resp, validation_report_json(&set, calibration_table(), &scratch));
    vset_free(&set);
}
