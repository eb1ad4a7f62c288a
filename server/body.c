/* body.c - a JSON request body: media type, parsing, and the JSON path of a parse error. */
#include "server/body.h"

#include <string.h>
#include <strings.h>
#include <stdio.h>

bool app_json_content_type(const char *ct)
{
    if (!ct || !*ct)
        return true; /* curl --data without -H: be lenient about a missing type */
    size_t n = strcspn(ct, ";");
    while (n && ct[n - 1] == ' ')
        n--;
    if (n == 16 && !strncasecmp(ct, "application/json", 16))
        return true;
    return n > 17 && !strncasecmp(ct, "application/", 12) && !strncasecmp(ct + n - 5, "+json", 5);
}

/* The JSON path ("inputs.efficiency", "axes[0].values[2]") of the member
 * being read at byte `end` of a document that failed to parse there, so that
 * a NaN, 1e400 or a duplicate key is reported against its field like any
 * other bad value. Best effort: "" outside any member or when too deep. */
static void json_error_path(const char *s, size_t end, char *out, size_t n)
{
    enum { DEPTH = 32, KEY = 64 };
    struct {
        char type;       /* '{' or '[' */
        bool in_value;   /* object: after ':' */
        bool key_done;   /* object: a whole key was read (a duplicate is reported right after it) */
        long index;      /* array: current element */
        char key[KEY];
    } st[DEPTH];
    int depth = 0;
    out[0] = '\0';
    for (size_t i = 0; i < end;) {
        char c = s[i];
        if (c == '"') {
            size_t k = 0;
            char key[KEY];
            for (i++; i < end && s[i] != '"'; i++) {
                if (s[i] == '\\' && i + 1 < end)
                    i++;
                if (k < KEY - 1)
                    key[k++] = s[i];
            }
            key[k] = '\0';
            bool closed = i < end;
            i++;
            if (depth > 0 && depth <= DEPTH && st[depth - 1].type == '{' && !st[depth - 1].in_value &&
                !st[depth - 1].key_done) {
                memcpy(st[depth - 1].key, key, k + 1);
                st[depth - 1].key_done = closed;
            }
            continue;
        }
        if (c == '{' || c == '[') {
            if (depth < DEPTH) {
                st[depth].type = c;
                st[depth].in_value = st[depth].key_done = false;
                st[depth].index = 0;
                st[depth].key[0] = '\0';
            }
            depth++;
        } else if ((c == '}' || c == ']') && depth > 0) {
            depth--;
        } else if (c == ':' && depth > 0 && depth <= DEPTH) {
            st[depth - 1].in_value = true;
        } else if (c == ',' && depth > 0 && depth <= DEPTH) {
            st[depth - 1].in_value = st[depth - 1].key_done = false;
            st[depth - 1].index++;
        }
        i++;
    }
    if (depth > DEPTH)
        return;
    size_t used = 0;
    for (int d = 0; d < depth && used < n; d++) {
        int w;
        if (st[d].type == '[')
            w = snprintf(out + used, n - used, "[%ld]", st[d].index);
        else if (st[d].key_done)
            w = snprintf(out + used, n - used, "%s%s", used ? "." : "", st[d].key);
        else
            break; /* inside a key of this object: the object is the field */
        if (w < 0)
            break;
        used += (size_t)w;
    }
    if (used >= n)
        out[n - 1] = '\0';
}

json_t *app_parse_body(const app_request *req, api_error *err)
{
    if (!app_json_content_type(req->content_type)) {
        api_fail(err, 415, "unsupported-media-type", "",
                 "send the body as JSON with Content-Type: application/json (got '%.80s'; with curl add "
                 "-H 'Content-Type: application/json')",
                 req->content_type);
        return NULL;
    }
    if (req->body_len == 0) {
        api_fail(err, 400, "invalid-json", "", "the request body is empty; expected a JSON object");
        return NULL;
    }
    json_error_t jerr;
    json_t *j = json_loadb(req->body, req->body_len, JSON_REJECT_DUPLICATES, &jerr);
    if (!j) {
        char field[160];
        size_t at = jerr.position >= 0 && (size_t)jerr.position <= req->body_len ? (size_t)jerr.position : req->body_len;
        json_error_path(req->body, at, field, sizeof field);
        api_fail(err, 400, "invalid-json", field, "invalid JSON at line %d, column %d: %s", jerr.line, jerr.column,
                 jerr.text);
        return NULL;
    }
    if (!json_is_object(j)) {
        json_decref(j);
        api_fail(err, 400, "invalid-json", "", "the request body must be a JSON object");
        return NULL;
    }
    return j;
}
