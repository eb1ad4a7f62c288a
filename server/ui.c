/* ui.c - see ui.h. The files come from the embedded table (cmake/embed.cmake
 * embeds every file directly in web/); a name is looked up exactly, so only
 * those files can be served. Each file's ETag is a 64-bit FNV-1a hash of its
 * bytes, computed once: it changes exactly when a build changes the file, and
 * a browser revalidates (Cache-Control: no-cache) instead of guessing. */
#include "server/ui.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "catalog/embedded.h"

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
    char etag[24];
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
        uint64_t h = 0xcbf29ce484222325ULL;
        for (size_t k = 0; k < f->len; k++)
            h = (h ^ f->data[k]) * 0x100000001b3ULL;
        files[n_files].f = f;
        snprintf(files[n_files].etag, sizeof files[n_files].etag, "\"%016llx\"", (unsigned long long)h);
        n_files++;
    }
}

/* If-None-Match: "*" or a comma-separated list of (possibly weak) tags. */
static bool etag_matches(const char *header, const char *etag)
{
    if (!header)
        return false;
    if (!strcmp(header, "*"))
        return true;
    return strstr(header, etag) != NULL;
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
        resp->cache_control = "no-cache";
        resp->csp = CSP;
        snprintf(resp->etag, sizeof resp->etag, "%s", files[i].etag);
        if (etag_matches(req->if_none_match, files[i].etag)) {
            resp->status = 304;
            return true;
        }
        sb_append(&resp->body, (const char *)files[i].f->data, files[i].f->len);
        resp->status = 200;
        return !resp->body.oom;
    }
    return false;
}

bool ui_wanted(const app_request *req)
{
    return req->accept && strstr(req->accept, "text/html");
}
