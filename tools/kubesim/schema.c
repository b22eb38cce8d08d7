/* kubesim schema table (see schema.h): parses KS_SCHEMA_TEXT (one struct a line: GO_TYPE
 * FIELD=KINDS:GO_TYPE ...) once into arrays of structs and fields, sorted by type for lookup. */
#include "schema.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static char *text; /* the parsed copy; names point into it */
static ks_schema_struct *structs;
static size_t nstructs;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static int by_type(const void *a, const void *b)
{
    return strcmp(((const ks_schema_struct *)a)->type, ((const ks_schema_struct *)b)->type);
}

static const ks_schema_struct *find(const char *type)
{
    ks_schema_struct key = {.type = type};
    return bsearch(&key, structs, nstructs, sizeof *structs, by_type);
}

/* The Go type of the struct at the end of a field's type ("[]v1.Container" -> "v1.Container"). */
static const char *element_type(const char *type)
{
    for (;;) {
        if (!strncmp(type, "[]", 2))
            type += 2;
        else if (!strncmp(type, "map[string]", 11))
            type += 11;
        else
            return type;
    }
}

static void parse(void)
{
    text = strdup(KS_SCHEMA_TEXT);
    if (!text) return;
    size_t lines = 0;
    for (const char *p = text; *p; p++)
        lines += *p == '\n';
    structs = calloc(lines ? lines : 1, sizeof *structs);
    if (!structs) return;
    char *save_line = NULL;
    for (char *line = strtok_r(text, "\n", &save_line); line;
         line = strtok_r(NULL, "\n", &save_line)) {
        size_t nf = 0;
        for (const char *p = line; *p; p++)
            nf += *p == ' ';
        ks_schema_field *fields = calloc(nf ? nf : 1, sizeof *fields);
        if (!fields) return;
        char *save_tok = NULL;
        char *type = strtok_r(line, " ", &save_tok);
        size_t n = 0;
        for (char *tok = strtok_r(NULL, " ", &save_tok); tok;
             tok = strtok_r(NULL, " ", &save_tok)) {
            char *eq = strchr(tok, '='), *colon = eq ? strchr(eq, ':') : NULL;
            if (!colon) continue;
            *eq = *colon = 0;
            fields[n++] = (ks_schema_field){.name = tok, .kinds = eq + 1, .type = colon + 1};
        }
        const char *dot = strrchr(type, '.');
        structs[nstructs++] = (ks_schema_struct){
            .type = type, .name = dot ? dot + 1 : type, .nfields = n, .fields = fields};
    }
    qsort(structs, nstructs, sizeof *structs, by_type);
    for (size_t i = 0; i < nstructs; i++)
        for (size_t f = 0; f < structs[i].nfields; f++) {
            ks_schema_field *fd = (ks_schema_field *)&structs[i].fields[f];
            const char *k = fd->kinds;
            if (k[strlen(k) - 1] == 'o') fd->obj = find(element_type(fd->type));
        }
}

const ks_schema_struct *ks_schema_struct_get(const char *go_type)
{
    pthread_once(&once, parse);
    return go_type && structs ? find(go_type) : NULL;
}

const ks_schema_field *ks_schema_field_get(const ks_schema_struct *s, const char *name)
{
    for (size_t i = 0; s && i < s->nfields; i++)
        if (!strcmp(s->fields[i].name, name)) return &s->fields[i];
    return NULL;
}
