/* ui.h - the dashboard: the files of web/ compiled into the binary and served
 * at "/" (index.html, to a client that accepts text/html) and /ui/{file}.
 * app.c calls ui_send for those two routes; nothing else does. */
#ifndef MLSYSD_UI_H
#define MLSYSD_UI_H

#include <stdbool.h>

#include "server/request.h"

/* Fill resp with the embedded file web/<name> ("index.html" for "/"): 200 with
 * its content type, an ETag of its bytes and the page's Content-Security-Policy,
 * or 304 when the request's If-None-Match names that ETag. false when there is
 * no such file (the caller answers 404). */
bool ui_send(const app_request *req, app_response *resp, const char *name);

/* Whether a request for "/" wants the page rather than the JSON index:
 * its Accept header names text/html (a browser's does, curl's does not). */
bool ui_wanted(const app_request *req);

#endif
