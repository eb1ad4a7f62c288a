/* jsonw.h - serialize a jansson value with round-trip shortest numbers
 * (jansson's own dump prints reals with %.17g: 0.515 -> 0.51500000000000001). */
#ifndef MLSYSD_JSONW_H
#define MLSYSD_JSONW_H

#include <jansson.h>
#include <stdbool.h>

#include "server/strbuf.h"

/* indent 0: compact; otherwise pretty with that many spaces. */
void json_write(strbuf *b, const json_t *v, int indent);

/* Would json_string(s) accept s? jansson's rule (utf.c), without allocating:
 * well-formed UTF-8, no overlong forms, no surrogates, nothing above U+10FFFF. */
bool json_utf8_ok(const char *s);
/* The same for len bytes that may not end in a NUL; a NUL among them fails. */
bool json_utf8_okn(const char *s, size_t len);

#endif
