/*
 * file_format.c — the registry of file formats (file_format_list.h) and the options lookup
 * every format shares. Called by the data source layer; owns nothing (the tables are static).
 */
#include "formats/file_format.h"

#include <stddef.h>
#include <strings.h>

#include "formats/file_format_list.h"

#define CS_DECLARE_FORMAT(name) extern const cs_file_format cs_file_format_##name;
CS_FILE_FORMAT_LIST(CS_DECLARE_FORMAT)
#undef CS_DECLARE_FORMAT

#define CS_FORMAT_ENTRY(name) &cs_file_format_##name,
static const cs_file_format *const registered_formats[] = {CS_FILE_FORMAT_LIST(CS_FORMAT_ENTRY)
                                                               NULL};
#undef CS_FORMAT_ENTRY

const cs_file_format *cs_file_format_find(const char *name)
{
    if (!name) return NULL;
    for (size_t i = 0; registered_formats[i]; i++)
        if (strcasecmp(registered_formats[i]->name, name) == 0) return registered_formats[i];
    return NULL;
}

const char *cs_format_option(const cs_format_options *o, const char *key)
{
    if (!o) return NULL;
    const char *found = NULL;
    for (int i = 0; i < o->n; i++) /* the last value given wins, as in Spark's options map */
        if (strcasecmp(o->keys[i], key) == 0) found = o->values[i];
    return found;
}
