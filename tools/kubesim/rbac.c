/* kubesim bearer-token authentication and RBAC rules (see rbac.h for the file format), and the
 * service-account tokens kubesim issues (TokenRequest, the kubelet's pods): kept in a list that
 * only grows, so the user names authentication returns stay valid. */
#include "rbac.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct issued {
    char token[80];
    char *user;
    time_t expires; /* 0 = never */
    struct issued *next;
} issued;

typedef struct rule {
    char *user, *verbs, *resources, *namespaces;
} rule;

typedef struct tok {
    char *token, *user;
} tok;

struct ks_rbac {
    char *admin_token;
    int have_rules, anonymous;
    rule *rules;
    int nrules;
    tok *tokens;
    int ntokens;
    pthread_mutex_t mu; /* issued */
    issued *issued;
};

void ks_rbac_free(ks_rbac *r)
{
    if (!r) return;
    free(r->admin_token);
    for (int i = 0; i < r->nrules; i++) {
        free(r->rules[i].user);
        free(r->rules[i].verbs);
        free(r->rules[i].resources);
        free(r->rules[i].namespaces);
    }
    for (int i = 0; i < r->ntokens; i++) {
        free(r->tokens[i].token);
        free(r->tokens[i].user);
    }
    free(r->rules);
    free(r->tokens);
    for (issued *i = r->issued, *n; i; i = n) {
        n = i->next;
        free(i->user);
        free(i);
    }
    pthread_mutex_destroy(&r->mu);
    free(r);
}

ks_rbac *ks_rbac_new(const char *admin_token, const char *path, int anonymous, char *err,
                     size_t errlen)
{
    ks_rbac *r = calloc(1, sizeof *r);
    if (!r) return NULL;
    pthread_mutex_init(&r->mu, NULL);
    r->anonymous = anonymous;
    if (admin_token) r->admin_token = strdup(admin_token);
    if (!path) return r;
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, errlen, "--rbac %s: cannot open file", path);
        ks_rbac_free(r);
        return NULL;
    }
    r->have_rules = 1;
    char line[2048];
    int lineno = 0;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        char *hash = strchr(line, '#');
        if (hash) *hash = 0;
        char *w[6] = {0};
        int n = 0;
        char *save = NULL;
        for (char *t = strtok_r(line, " \t\r\n", &save); t && n < 6;
             t = strtok_r(NULL, " \t\r\n", &save))
            w[n++] = t;
        if (n == 0) continue;
        if (!strcmp(w[0], "token") && n == 3) {
            tok *nt = realloc(r->tokens, (size_t)(r->ntokens + 1) * sizeof *nt);
            if (!nt) break;
            r->tokens = nt;
            r->tokens[r->ntokens].token = strdup(w[1]);
            r->tokens[r->ntokens].user = strdup(w[2]);
            r->ntokens++;
        } else if (!strcmp(w[0], "allow") && n == 5) {
            rule *nr = realloc(r->rules, (size_t)(r->nrules + 1) * sizeof *nr);
            if (!nr) break;
            r->rules = nr;
            r->rules[r->nrules] = (rule){strdup(w[1]), strdup(w[2]), strdup(w[3]), strdup(w[4])};
            r->nrules++;
        } else {
            snprintf(err, errlen,
                     "--rbac %s:%d: expected 'token <token> <user>' or 'allow <user> <verbs> "
                     "<resources> <namespaces>'",
                     path, lineno);
            fclose(f);
            ks_rbac_free(r);
            return NULL;
        }
    }
    fclose(f);
    return r;
}

const char *ks_rbac_authenticate(const ks_rbac *r, const char *authorization)
{
    const char *t = NULL;
    if (authorization && !strncasecmp(authorization, "Bearer ", 7)) {
        t = authorization + 7;
        while (*t == ' ')
            t++;
    }
    if (!t || !*t) {
        if (r->anonymous == 2) return KS_RBAC_ADMIN_USER;
        return r->anonymous || !r->admin_token ? "system:anonymous" : NULL;
    }
    if (r->admin_token && !strcmp(t, r->admin_token)) return KS_RBAC_ADMIN_USER;
    for (int i = 0; i < r->ntokens; i++)
        if (!strcmp(r->tokens[i].token, t)) return r->tokens[i].user;
    const char *user = NULL;
    time_t now = time(NULL);
    pthread_mutex_lock((pthread_mutex_t *)&r->mu);
    for (issued *i = r->issued; i && !user; i = i->next)
        if (!strcmp(i->token, t) && (!i->expires || now < i->expires)) user = i->user;
    pthread_mutex_unlock((pthread_mutex_t *)&r->mu);
    return user;
}

char *ks_rbac_issue_token(ks_rbac *r, const char *user, long long expiration_s)
{
    issued *i = calloc(1, sizeof *i);
    unsigned char raw[24];
    FILE *f = fopen("/dev/urandom", "re");
    int ok = f && fread(raw, 1, sizeof raw, f) == sizeof raw;
    if (f) fclose(f);
    if (!i || !ok || !(i->user = strdup(user))) {
        free(i);
        return NULL;
    }
    int n = snprintf(i->token, sizeof i->token, "kubesim-sa.");
    for (size_t b = 0; b < sizeof raw; b++)
        n += snprintf(i->token + n, sizeof i->token - (size_t)n, "%02x", raw[b]);
    i->expires = expiration_s > 0 ? time(NULL) + (time_t)expiration_s : 0;
    pthread_mutex_lock(&r->mu);
    i->next = r->issued;
    r->issued = i;
    pthread_mutex_unlock(&r->mu);
    return strdup(i->token);
}

int ks_rbac_is_service_account(const char *user)
{
    return !strncmp(user, "system:serviceaccount:", 22);
}

static int list_has(const char *list, const char *item)
{
    if (!strcmp(list, "*")) return 1;
    size_t n = strlen(item);
    for (const char *p = list; *p;) {
        const char *e = strchr(p, ',');
        size_t l = e ? (size_t)(e - p) : strlen(p);
        if (l == n && !strncmp(p, item, n)) return 1;
        if (!e) break;
        p = e + 1;
    }
    return 0;
}

int ks_rbac_allowed(const ks_rbac *r, const char *user, const char *verb, const char *resource,
                    const char *ns)
{
    if (!strcmp(user, KS_RBAC_ADMIN_USER)) return 1;
    if (!r->have_rules) return !ks_rbac_is_service_account(user);
    for (int i = 0; i < r->nrules; i++) {
        const rule *ru = &r->rules[i];
        if (strcmp(ru->user, user) && strcmp(ru->user, "*")) continue;
        if (!list_has(ru->verbs, verb) || !list_has(ru->resources, resource)) continue;
        if (ns ? list_has(ru->namespaces, ns)
               : (list_has(ru->namespaces, "-") || !strcmp(ru->namespaces, "*")))
            return 1;
    }
    return 0;
}
