/* conf_doc.c — prints the Markdown table of Spark 4.1's spark.kubernetes.* keys that
 * docs/configuration.md holds between its "generated" markers: each key's type, range and default
 * from its conf_entries.c entry (or the words of conf_k8s_keys.c when the default is computed or
 * absent), its meaning, and whether cspark implements it or refuses it and why.
 *
 * Run by scripts/conf-doc.sh (which rewrites the page) and tests/integration/conf_doc.sh (which
 * fails when the page differs). Exits 1, naming the key, when a row gives a default in words
 * for a key whose entry has one: the default would be written twice.
 */
#include <stdio.h>
#include <string.h>

#include "common/conf_entries.h"
#include "common/conf_k8s_keys.h"

static const char *unit_name(const cs_conf_entry *e)
{
    switch (e->unit) {
    case CS_MS:
        return "ms";
    case CS_SEC:
        return "s";
    case CS_MiB:
        return "MiB";
    case CS_KiB:
        return "KiB";
    default:
        return "bytes";
    }
}

static void print_type(const cs_conf_entry *e)
{
    if (!e) {
        fputs("text", stdout);
        return;
    }
    switch (e->type) {
    case CS_CONF_BOOL:
        fputs("bool", stdout);
        break;
    case CS_CONF_INT:
        if (e->min == 0)
            fputs("int ≥ 0", stdout);
        else
            printf("int ≥ %.0f", e->min);
        break;
    case CS_CONF_PORT:
        fputs("port", stdout);
        break;
    case CS_CONF_SIZE:
        printf("size, bare number in %s", unit_name(e));
        break;
    case CS_CONF_DURATION:
        printf("duration %s, bare number in %s", e->min_open ? "> 0" : "≥ 0", unit_name(e));
        break;
    case CS_CONF_DOUBLE:
        printf("number %s %g", e->min_open ? ">" : "≥", e->min);
        break;
    case CS_CONF_CHOICE:
        fputs("one of ", stdout);
        for (const char *p = e->choices; *p; p++)
            if (*p == '|')
                fputs(", ", stdout);
            else
                putchar(*p);
        break;
    case CS_CONF_STRING:
        fputs("text", stdout);
        break;
    }
}

int main(void)
{
    int n;
    const cs_conf_k8s_key *keys = cs_conf_k8s_keys(&n);
    int bad = 0;
    puts("| key | type | default | meaning | in cspark |");
    puts("|---|---|---|---|---|");
    for (int i = 0; i < n; i++) {
        const cs_conf_k8s_key *k = &keys[i];
        size_t len = strlen(k->key);
        bool family = len && k->key[len - 1] == '.';
        const cs_conf_entry *e = family ? NULL : cs_conf_entry_find(k->key);
        if (e && e->dflt && k->dflt_words) {
            fprintf(stderr, "conf_doc: %s has a default in its entry and in words\n", k->key);
            bad = 1;
        }
        printf("| `%s%s` | ", k->key, family ? "<name>" : "");
        print_type(e);
        if (e && e->dflt)
            printf(" | `%s` | ", e->dflt);
        else if (k->dflt_words)
            printf(" | %s | ", k->dflt_words);
        else
            fputs(" | (none) | ", stdout);
        printf("%s | ", k->meaning);
        if (!k->refused)
            puts("yes |");
        else if (e && e->dflt)
            printf("**refused** unless `%s`: %s |\n", e->dflt, k->refused);
        else
            printf("**refused**: %s |\n", k->refused);
    }
    return bad;
}
