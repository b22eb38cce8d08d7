/*
 * json_text.h — JSON strings from C strings that may not be UTF-8 (application names, paths,
 * error messages, user log text): what the event log and the REST API write. Jansson refuses
 * invalid UTF-8; here every byte that does not start a valid sequence becomes '?', so a value is
 * never dropped. The returned reference belongs to the caller (json_decref, or a *_set_new).
 */
#ifndef CSPARK_COMMON_JSON_TEXT_H
#define CSPARK_COMMON_JSON_TEXT_H

#include <jansson.h>

/* s as a JSON string (NULL: ""); invalid UTF-8 bytes replaced by '?'. */
json_t *cs_json_text(const char *s);

#endif
