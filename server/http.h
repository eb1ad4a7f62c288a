/* http.h - libmicrohttpd glue: sockets, threads, limits, request ids, CORS,
 * access logs and metrics around app_handle(). */
#ifndef MLSYSD_HTTP_H
#define MLSYSD_HTTP_H

#include <stdint.h>

#include "server/app.h"
#include "server/log.h"

typedef struct server server;

int server_start(server **out, app *a, const config *cfg, char *msg, size_t msglen);
uint16_t server_port(const server *s);
/* Stop accepting new connections; in-flight ones continue. */
void server_quiesce(server *s);
void server_stop(server *s);


#endif
