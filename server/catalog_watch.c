/* catalog_watch.c - logging changes of --catalog-dir while the daemon runs
 * (contract in catalog_watch.h): inotify on the directory, read by one
 * thread that polls it beside a pipe main.c's stop writes to. While the
 * directory is gone the thread looks for it once a second, and watches it
 * again when it is back. */
#include "server/catalog_watch.h"

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include "server/log.h"
#include "server/strbuf.h"

#define FILE_EVENTS (IN_CLOSE_WRITE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO)
#define DIR_EVENTS (IN_DELETE_SELF | IN_MOVE_SELF)
#define LOOK_AGAIN_MS 1000 /* while the directory is gone */

struct catalog_watch {
    char *dir;
    int fd;       /* inotify */
    int wd;       /* the directory's watch; -1 while it is gone */
    int stop[2];  /* pipe: a byte stops the thread */
    pthread_t thread;
};

/* What happened, by inotify event: the "change" member of the line. */
static const struct {
    unsigned mask;
    const char *change;
} CHANGES[] = {
    {IN_CLOSE_WRITE, "written"},      {IN_DELETE, "removed"},          {IN_MOVED_FROM, "renamed away"},
    {IN_MOVED_TO, "renamed in"},      {IN_DELETE_SELF, "directory removed"}, {IN_MOVE_SELF, "directory renamed away"},
};

static void log_change(const catalog_watch *w, const char *file, const char *change)
{
    strbuf b;
    sb_init(&b);
    sb_puts(&b, "\"catalog_dir\":");
    sb_json_string(&b, w->dir);
    if (file) {
        sb_puts(&b, ",\"file\":");
        sb_json_string(&b, file);
    }
    sb_puts(&b, ",\"change\":");
    sb_json_string(&b, change);
    sb_puts(&b, ",\"answers\":\"from the catalog loaded at start-up, until a restart loads the directory again\"");
    log_line(LOG_WARN, "catalog directory changed", b.data);
    sb_free(&b);
}

static bool is_json_name(const char *name)
{
    size_t n = strlen(name);
    return n > 5 && !strcmp(name + n - 5, ".json");
}

static void add_watch(catalog_watch *w)
{
    w->wd = inotify_add_watch(w->fd, w->dir, FILE_EVENTS | DIR_EVENTS | IN_ONLYDIR);
}

static void read_events(catalog_watch *w)
{
    char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
    for (;;) {
        ssize_t n = read(w->fd, buf, sizeof buf);
        if (n <= 0)
            return;
        for (char *p = buf; p < buf + n;) {
            const struct inotify_event *e = (const struct inotify_event *)p;
            p += sizeof *e + e->len;
            if (e->wd != w->wd)
                continue;
            if (e->mask & IN_IGNORED) { /* the watch is gone with the directory */
                w->wd = -1;
                continue;
            }
            bool self = e->mask & DIR_EVENTS;
            if (!self && !(e->len && is_json_name(e->name)))
                continue;
            for (size_t k = 0; k < sizeof CHANGES / sizeof CHANGES[0]; k++)
                if (e->mask & CHANGES[k].mask)
                    log_change(w, self ? NULL : e->name, CHANGES[k].change);
            if (e->mask & IN_MOVE_SELF) { /* renamed away: this path no longer names it */
                inotify_rm_watch(w->fd, w->wd);
                w->wd = -1;
            }
        }
    }
}

static void *watch_thread(void *arg)
{
    catalog_watch *w = arg;
    for (;;) {
        struct pollfd p[2] = {{.fd = w->fd, .events = POLLIN}, {.fd = w->stop[0], .events = POLLIN}};
        int r = poll(p, 2, w->wd < 0 ? LOOK_AGAIN_MS : -1);
        if (r < 0 && errno != EINTR)
            break;
        if (p[1].revents)
            break;
        if (p[0].revents)
            read_events(w);
        if (w->wd < 0) {
            struct stat st;
            if (stat(w->dir, &st) == 0 && S_ISDIR(st.st_mode)) {
                add_watch(w);
                if (w->wd >= 0)
                    log_change(w, NULL, "directory back");
            }
        }
    }
    return NULL;
}

catalog_watch *catalog_watch_start(const char *dir)
{
    catalog_watch *w = calloc(1, sizeof *w);
    char why[160] = "";
    if (!w || !(w->dir = strdup(dir))) {
        snprintf(why, sizeof why, "out of memory");
    } else if ((w->fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC)) < 0) {
        snprintf(why, sizeof why, "inotify: %s", strerror(errno));
    } else {
        add_watch(w);
        if (w->wd < 0)
            snprintf(why, sizeof why, "inotify_add_watch: %s", strerror(errno));
        else if (pipe(w->stop) != 0)
            snprintf(why, sizeof why, "pipe: %s", strerror(errno));
        else if (pthread_create(&w->thread, NULL, watch_thread, w) != 0)
            snprintf(why, sizeof why, "cannot start its thread");
    }
    if (!why[0])
        return w;
    strbuf b;
    sb_init(&b);
    sb_puts(&b, "\"catalog_dir\":");
    sb_json_string(&b, dir);
    sb_puts(&b, ",\"reason\":");
    sb_json_string(&b, why);
    log_line(LOG_WARN, "catalog directory not watched: its changes will not be logged", b.data);
    sb_free(&b);
    if (w) {
        if (w->stop[0] > 0) {
            close(w->stop[0]);
            close(w->stop[1]);
        }
        if (w->fd > 0)
            close(w->fd);
        free(w->dir);
        free(w);
    }
    return NULL;
}

void catalog_watch_stop(catalog_watch *w)
{
    if (!w)
        return;
    char c = 0;
    if (write(w->stop[1], &c, 1) != 1)
        pthread_cancel(w->thread);
    pthread_join(w->thread, NULL);
    close(w->stop[0]);
    close(w->stop[1]);
    close(w->fd);
    free(w->dir);
    free(w);
}
