/* request_id.h - the X-Request-ID of a request: the client's, when it is
 * 1..64 characters of [A-Za-z0-9._:-], else one made here. http.c calls these. */
#ifndef MLSYSD_REQUEST_ID_H
#define MLSYSD_REQUEST_ID_H

#include <stdbool.h>
#include <stddef.h>

bool valid_request_id(const char *id);
/* A new id: 20 hex digits that look random and never repeat within a process. */
void new_request_id(char *buf, size_t n);

#endif
