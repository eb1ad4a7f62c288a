/* ui.c - see ui.h. The files come from the embedded table (cmake/embed.cmake
 * embeds every file directly in web/); a name is looked up exactly, so only
 * those files can be served. Each file's ETag is the tag of its bytes
 * (conditional.h), computed once: it changes exactly when a build changes the
 * file, and a browser revalidates (Cache-Control: no-cache) instead of
 * guessing. A file is gzip-encoded once, for the first client that accepts it
 * (gzip.h), and kept (encoding per request would spend CPU on every page
 * load, about 1 ms for the 51 KB chart library); "/" and /ui/{file} send that to a client that
 * accepts it (http.c adds Vary: Accept-Encoding on both). */
#include "server/ui.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "catalog/embedded.h"
#include "server/conditional.h"
#include "server/gzip.h"
#include "server/reply.h"

/* Nothing outside the daemon: scripts, styles, data and images from 'self' only. */
static const char CSP[] = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
                          "connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

static const struct {
    const char *ext;
    const char *type;
} TYPES[] = {
    {".html", "text/html; charset=utf-8"},
    {".js", "text/javascript; charset=utf-8"},
    {".css", "text/css; charset=utf-8"},
    {".svg", "image/svg+xml"},
    {".txt", "text/plain; charset=utf-8"},
};

#define UI_MAX_FILES 64
static struct {
    const embedded_file *f;
    char etag[ETAG_LEN], gz_etag[ETAG_LEN];
    gzip_once gz;
} files[UI_MAX_FILES];
static size_t n_files;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static const char *content_type(const char *path)
{
    size_t n = strlen(path);
    for (size_t i = 0; i < sizeof TYPES / sizeof TYPES[0]; i++) {
        size_t m = strlen(TYPES[i].ext);
        if (n > m && !strcmp(path + n - m, TYPES[i].ext))
            return TYPES[i].type;
    }
    return NULL;
}

static void index_files(void)
{
    for (size_t i = 0; i < mlsysd_embedded_count && n_files < UI_MAX_FILES; i++) {
        const embedded_file *f = &mlsysd_embedded[i];
        if (strncmp(f->path, "web/", 4) || !content_type(f->path))
            continue;
        files[n_files].f = f;
        etag_of(f->data, f->len, files[n_files].etag);
        etag_gzip(files[n_files].etag, files[n_files].gz_etag);
        n_files++;
    }
}

bool ui_send(const app_request *req, app_response *resp, const char *name)
{
    pthread_once(&once, index_files);
    for (size_t i = 0; i < n_files; i++) {
        const char *path = files[i].f->path + 4;
        if (strcmp(path, name))
            continue;
        sb_reset(&resp->body);
        resp->content_type = content_type(path);
        resp->csp = CSP;
        resp->status = 200;
        size_t gz_len = 0;
        const char *gz = gzip_accepted(req->accept_encoding)
                             ? gzip_once_get(&files[i].gz, files[i].f->data, files[i].f->len, &gz_len)
                             : NULL;
        if (conditional_apply(req->if_none_match, resp, gz ? files[i].gz_etag : files[i].etag))
            return true;
        resp->content_encoding = gz ? "gzip" : NULL;
        return reply_shared(req, resp, gz ? gz : (const char *)files[i].f->data, gz ? gz_len : files[i].f->len);
    }
    return false;
}

bool ui_wanted(const app_request *req)
{
    return req->accept && strstr(req->accept, "text/html");
}
