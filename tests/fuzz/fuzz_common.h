/* fuzz_common.h - shared set-up of the libFuzzer targets: one catalog, one
 * app with a small sweep cap and a short request timeout, built once per
 * process; and helpers that run one app_request to completion (streams
 * drained) and abort() on anything the API contract forbids. */
#ifndef MLSYSD_FUZZ_COMMON_H
#define MLSYSD_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include "server/app.h"

/* The app every target shares (lazily initialised; aborts on failure). */
app *fuzz_app(void);

/* Handle req, drain a streamed body through a small buffer, check the
 * response (status in the allowed set, never 500; problem+json for errors)
 * and free it. Aborts on a violation. */
void fuzz_run(app *a, const app_request *req);

#endif
