/* config.h - daemon settings from flags and MLSYSD_* environment variables
 * (flags win). Invalid values stop start-up with a message and exit code 2. */
#ifndef MLSYSD_CONFIG_H
#define MLSYSD_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "core/solver.h"

typedef enum { LOG_DEBUG, LOG_INFO, LOG_WARN, LOG_ERROR } log_level;

typedef struct {
    char host[128];
    int port;
    int threads;                /* 0 until main() resolves it to the CPU count */
    char catalog_dir[512];
    size_t max_body_bytes;
    long long sweep_max_points;
    int sweep_threads;          /* threads one sweep's rows may use; 0: one per CPU */
    long long batch_max_items;  /* most items of one POST /batch */
    int max_connections;
    int max_connections_per_ip;
    size_t connection_memory;   /* bytes, each connection's libmicrohttpd memory pool */
    int connection_timeout;     /* s, idle/slow client cut-off */
    double request_timeout;     /* s, longest a sweep may compute */
    double read_timeout;        /* s, a whole request must arrive within this (slow clients) */
    char cors_origins[1024];    /* comma-separated, "*" for any, "" for none */
    log_level log_level;
    double log_flush_interval;  /* s, longest a request's log line is held (0: written at once) */
    double drain_delay;         /* s */
    double drain_timeout;       /* s */
    calibration_mode calibration; /* a request's default "calibration" (--calibration) */
    bool no_dashboard;          /* --no-dashboard: "/" and /ui/ serve no page */
    bool healthcheck;           /* --healthcheck: probe /healthz and exit */
} config;

typedef enum { CONFIG_RUN, CONFIG_EXIT_OK, CONFIG_EXIT_USAGE } config_result;

/* Iterate a comma-separated origin list: each call yields the next item,
 * trimmed of blanks (item points into the list, len bytes); false at the end. */
bool origin_list_next(const char **cursor, const char **item, size_t *len);

void config_defaults(config *c);
/* Parse env then argv. On CONFIG_EXIT_USAGE, msg says which setting and why. */
config_result config_parse(config *c, int argc, char **argv, char *msg, size_t msglen);
void config_print_help(const char *prog);
/* The same text to any stream (tests read it). */
void config_write_help(FILE *f, const char *prog);
const char *log_level_name(log_level l);

#endif
