/* catalog_watch.h - a log line when --catalog-dir changes while the daemon runs.
 *
 * The daemon answers from the catalog it loaded at start-up whatever the
 * directory does later (it keeps no state to reload). The watcher only tells
 * the operator: one warn line per change of a *.json file in the directory
 * (written, removed, renamed in or out) and per change of the directory itself
 * (removed or renamed away; back again), each saying that answers continue
 * from the loaded catalog until a restart. It uses inotify on a thread of its
 * own and costs nothing while the directory is still.
 *
 * main.c alone calls these: start after the catalog is loaded, stop before exit. */
#ifndef MLSYSD_CATALOG_WATCH_H
#define MLSYSD_CATALOG_WATCH_H

typedef struct catalog_watch catalog_watch;

/* Watches dir; NULL (with a warn line saying why) when it cannot. */
catalog_watch *catalog_watch_start(const char *dir);
/* Stops the thread and frees the watcher; NULL is a no-op. */
void catalog_watch_stop(catalog_watch *w);

#endif
