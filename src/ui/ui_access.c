/* ui_access.c — the UI server's Host check, basic and bearer authentication and ACLs (see
 * ui_access.h).
 *
 * Lists (ACLs, ACL groups, allowed hosts) are kept as the comma-separated text of their keys and
 * matched token by token; the users file is read once at start into (user, hash) pairs and a
 * password is checked with libxcrypt's crypt_rn, the hash comparison in constant time; the tokens
 * file is read once into (SHA-256 of the token, user) pairs and a presented token's digest is
 * compared with every pair (OpenSSL's CRYPTO_memcmp, no early exit). A user's groups are asked of
 * the system on each check that needs them (getpwnam_r, getgrouplist, getgrgid_r: the groups
 * `id -Gn user` prints, which is what Spark's ShellBasedGroupsMappingProvider runs).
 */
#define _GNU_SOURCE
#include "ui/ui_access.h"

#include <crypt.h>
#include <ctype.h>
#include <errno.h>
#include <grp.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/conf_entries.h"
#include "common/fsutil.h"
#include "common/strutil.h"

#define SPARK_GROUPS_MAPPING "org.apache.spark.security.ShellBasedGroupsMappingProvider"

typedef struct ui_user {
    char *name, *hash;
} ui_user;

typedef struct ui_token {
    unsigned char digest[32]; /* SHA-256 of the token */
    char *user;
} ui_token;

struct ui_access {
    bool acls;
    bool history;        /* per-application ACLs from each application's environment */
    char *owner;         /* live: the application's owner */
    char *view, *modify; /* live: spark.ui.view.acls, spark.modify.acls */
    char *admin;         /* spark.admin.acls / spark.history.ui.admin.acls */
    char *view_groups, *modify_groups; /* live: spark.ui.view.acls.groups, .modify.acls.groups */
    char *admin_groups; /* spark.admin.acls.groups / spark.history.ui.admin.acls.groups */
    char *hosts;        /* cspark.ui.allowedHosts */
    char *driver_host;  /* spark.driver.host */
    char hostname[256]; /* this machine's name */
    ui_user *users;
    size_t num_users;
    ui_token *tokens;
    size_t num_tokens;
};

/* Whether the comma-separated list holds name (trimmed tokens) or "*". */
static bool list_has(const char *list, const char *name)
{
    if (!list) return false;
    size_t name_len = name ? strlen(name) : 0;
    for (const char *p = list; *p;) {
        size_t n = strcspn(p, ",");
        const char *t = p, *end = p + n;
        while (t < end && isspace((unsigned char)*t))
            t++;
        while (end > t && isspace((unsigned char)end[-1]))
            end--;
        size_t tn = (size_t)(end - t);
        if ((tn == 1 && t[0] == '*') ||
            (name && tn == name_len && tn > 0 && strncmp(t, name, tn) == 0))
            return true;
        p += n;
        if (*p == ',') p++;
    }
    return false;
}

static char *dup_or_null(const char *s)
{
    return s && *s ? cs_xstrdup(s) : NULL;
}

/* A set key that cspark cannot honour: an error naming it. */
static int refuse_unsupported(const cs_conf *conf, bool history, cs_error *err)
{
    const char *v = cs_conf_get(conf, "spark.ui.filters");
    if (v && *v)
        return cs_error_set(err, CS_EINVAL,
                            "spark.ui.filters='%s' is not supported: cspark runs no servlet "
                            "filters; authenticate UI users with cspark.ui.auth.usersFile (an "
                            "htpasswd file) or cspark.ui.auth.tokensFile (bearer tokens) and "
                            "spark.acls.enable",
                            v);
    /* HTTPS as Spark's SSLOptions: the server's namespace, else spark.ssl.enabled */
    const char *ssl_keys[] = {history ? "spark.ssl.historyServer.enabled" : "spark.ssl.ui.enabled",
                              "spark.ssl.enabled"};
    for (size_t i = 0; i < 2; i++) {
        v = cs_conf_get(conf, ssl_keys[i]);
        if (!v || !*v) continue;
        bool on = false;
        if (cs_conf_get_bool(conf, ssl_keys[i], "false", &on, err) < 0) return err->code;
        if (on)
            return cs_error_set(err, CS_EINVAL,
                                "%s=true is not supported: cspark's UI serves plain HTTP; put a "
                                "TLS-terminating proxy (an Ingress, a sidecar) in front of it",
                                ssl_keys[i]);
        break;
    }
    v = cs_conf_entry_string(conf, "spark.user.groups.mapping");
    if (v && strcmp(v, SPARK_GROUPS_MAPPING) != 0)
        return cs_error_set(err, CS_EINVAL,
                            "spark.user.groups.mapping='%s' is not supported: cspark maps users "
                            "to their system groups only (" SPARK_GROUPS_MAPPING ")",
                            v);
    return 0;
}

/* The next entry of a users or tokens file held in [*cursor, end): the line trimmed of blanks and
 * NUL-terminated in place (the callers put a NUL after the data), blank and '#' lines passed
 * over; NULL at the end. *line_no counts every line, for messages. */
static char *next_entry_line(char **cursor, char *end, int *line_no)
{
    for (char *line = *cursor; line && line < end; line = *cursor) {
        (*line_no)++;
        char *nl = memchr(line, '\n', (size_t)(end - line));
        *cursor = nl ? nl + 1 : NULL;
        size_t n = nl ? (size_t)(nl - line) : (size_t)(end - line);
        while (n > 0 && isspace((unsigned char)line[n - 1]))
            n--;
        line[n] = '\0';
        while (*line == ' ' || *line == '\t')
            line++;
        if (*line && *line != '#') return line;
    }
    return NULL;
}

/* Reads the file named by key (path) whole, with a NUL after its len bytes for
 * next_entry_line; *data is the caller's to free. */
static int read_entries_file(const char *key, const char *path, uint8_t **data, size_t *len,
                             cs_error *err)
{
    cs_error rerr = {0};
    if (cs_read_file(path, data, len, &rerr) < 0)
        return cs_error_set(err, CS_EINVAL, "cannot read %s=%s: %s", key, path, rerr.msg);
    *data = cs_xrealloc(*data, *len + 1); /* a last line without '\n' is ended in place */
    (*data)[*len] = '\0';
    return 0;
}

/* Reads an htpasswd file: "user:hash" lines, '#' comments and blank lines skipped. */
static int read_users(ui_access *a, const char *path, cs_error *err)
{
    uint8_t *data;
    size_t len;
    if (read_entries_file("cspark.ui.auth.usersFile", path, &data, &len, err) < 0) return err->code;
    char *cursor = (char *)data, *line;
    int rc = 0, line_no = 0;
    while ((line = next_entry_line(&cursor, (char *)data + len, &line_no))) {
        char *colon = strchr(line, ':');
        if (!colon || colon == line || !colon[1] || crypt_checksalt(colon + 1) != CRYPT_SALT_OK) {
            rc = cs_error_set(err, CS_EINVAL,
                              "cspark.ui.auth.usersFile=%s line %d: expected user:hash with a "
                              "crypt(3) hash (htpasswd -B, or openssl passwd -6)",
                              path, line_no);
            break;
        }
        *colon = '\0';
        a->users = cs_xrealloc(a->users, (a->num_users + 1) * sizeof *a->users);
        a->users[a->num_users].name = cs_xstrdup(line);
        a->users[a->num_users].hash = cs_xstrdup(colon + 1);
        a->num_users++;
    }
    if (rc == 0 && a->num_users == 0)
        rc = cs_error_set(err, CS_EINVAL, "cspark.ui.auth.usersFile=%s names no user", path);
    free(data);
    return rc;
}

static int hex_digit(int c)
{
    if (c >= '0' && c <= '9') return c - '0';
    c = tolower(c);
    return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

static void sha256(const char *text, size_t n, unsigned char out[32])
{
    unsigned int len = 32;
    if (EVP_Digest(text, n, out, &len, EVP_sha256(), NULL) != 1) abort(); /* out of memory */
}

/* Reads a tokens file: "token user" lines, where token is "sha256:" and the 64 hex digits of the
 * token's SHA-256 (`printf %s "$TOKEN" | sha256sum`) or the token itself (16 characters or more);
 * '#' comments and blank lines skipped. */
static int read_tokens(ui_access *a, const char *path, cs_error *err)
{
    uint8_t *data;
    size_t len;
    if (read_entries_file("cspark.ui.auth.tokensFile", path, &data, &len, err) < 0)
        return err->code;
    char *cursor = (char *)data, *line;
    int rc = 0, line_no = 0;
    while ((line = next_entry_line(&cursor, (char *)data + len, &line_no))) {
        size_t tn = strcspn(line, " \t");
        char *user = line + tn;
        while (*user == ' ' || *user == '\t')
            user++;
        unsigned char digest[32];
        bool ok = tn > 0 && *user && !strpbrk(user, " \t");
        if (ok && tn > 7 && strncmp(line, "sha256:", 7) == 0) {
            ok = tn == 7 + 64;
            for (size_t i = 0; ok && i < 32; i++) {
                int hi = hex_digit(line[7 + 2 * i]), lo = hex_digit(line[8 + 2 * i]);
                ok = hi >= 0 && lo >= 0;
                digest[i] = (unsigned char)(hi << 4 | lo);
            }
        } else if (ok) {
            ok = tn >= 16;
            sha256(line, tn, digest);
        }
        if (!ok) {
            rc = cs_error_set(err, CS_EINVAL,
                              "cspark.ui.auth.tokensFile=%s line %d: expected 'TOKEN USER' where "
                              "TOKEN is sha256:<64 hex digits of the token's SHA-256> or the "
                              "token itself (16 characters or more)",
                              path, line_no);
            break;
        }
        a->tokens = cs_xrealloc(a->tokens, (a->num_tokens + 1) * sizeof *a->tokens);
        memcpy(a->tokens[a->num_tokens].digest, digest, sizeof digest);
        a->tokens[a->num_tokens].user = cs_xstrdup(user);
        a->num_tokens++;
    }
    if (rc == 0 && a->num_tokens == 0)
        rc = cs_error_set(err, CS_EINVAL, "cspark.ui.auth.tokensFile=%s names no token", path);
    free(data);
    return rc;
}

ui_access *cs_ui_access_new(const cs_conf *conf, bool history, cs_error *err)
{
    ui_access *a = cs_xcalloc(1, sizeof *a);
    a->history = history;
    if (refuse_unsupported(conf, history, err) < 0) goto fail;
    const char *acl_key = history ? "spark.history.ui.acls.enable" : "spark.acls.enable";
    const char *legacy = history ? NULL : cs_conf_get(conf, "spark.ui.acls.enable");
    if (cs_conf_get_bool(conf, acl_key, legacy ? legacy : "false", &a->acls, err) < 0) goto fail;
    if (history) {
        a->admin = dup_or_null(cs_conf_get(conf, "spark.history.ui.admin.acls"));
        a->admin_groups = dup_or_null(cs_conf_get(conf, "spark.history.ui.admin.acls.groups"));
    } else {
        a->view = dup_or_null(cs_conf_get(conf, "spark.ui.view.acls"));
        a->modify = dup_or_null(cs_conf_get(conf, "spark.modify.acls"));
        a->admin = dup_or_null(cs_conf_get(conf, "spark.admin.acls"));
        a->view_groups = dup_or_null(cs_conf_get(conf, "spark.ui.view.acls.groups"));
        a->modify_groups = dup_or_null(cs_conf_get(conf, "spark.modify.acls.groups"));
        a->admin_groups = dup_or_null(cs_conf_get(conf, "spark.admin.acls.groups"));
        const char *owner = getenv("SPARK_USER");
        if (!owner || !*owner) owner = getenv("USER");
        if (!owner || !*owner) {
            struct passwd *pw = getpwuid(getuid());
            owner = pw ? pw->pw_name : NULL;
        }
        a->owner = dup_or_null(owner);
    }
    a->hosts = dup_or_null(cs_conf_get(conf, "cspark.ui.allowedHosts"));
    a->driver_host = dup_or_null(cs_conf_get(conf, "spark.driver.host"));
    if (gethostname(a->hostname, sizeof a->hostname) != 0) a->hostname[0] = '\0';
    a->hostname[sizeof a->hostname - 1] = '\0';
    const char *users = cs_conf_get(conf, "cspark.ui.auth.usersFile");
    if (users && *users && read_users(a, users, err) < 0) goto fail;
    const char *tokens = cs_conf_get(conf, "cspark.ui.auth.tokensFile");
    if (tokens && *tokens && read_tokens(a, tokens, err) < 0) goto fail;
    if (a->acls && a->num_users == 0 && a->num_tokens == 0) {
        cs_error_set(err, CS_EINVAL,
                     "%s=true needs a way to tell users apart: set cspark.ui.auth.usersFile to an "
                     "htpasswd file or cspark.ui.auth.tokensFile to a file of bearer tokens "
                     "(cspark runs no spark.ui.filters)",
                     acl_key);
        goto fail;
    }
    return a;
fail:
    cs_ui_access_free(a);
    return NULL;
}

void cs_ui_access_free(ui_access *a)
{
    if (!a) return;
    for (size_t i = 0; i < a->num_users; i++) {
        free(a->users[i].name);
        free(a->users[i].hash);
    }
    free(a->users);
    for (size_t i = 0; i < a->num_tokens; i++)
        free(a->tokens[i].user);
    free(a->tokens);
    free(a->owner);
    free(a->view);
    free(a->modify);
    free(a->admin);
    free(a->view_groups);
    free(a->modify_groups);
    free(a->admin_groups);
    free(a->hosts);
    free(a->driver_host);
    free(a);
}

/* ---- Host ----------------------------------------------------------------------------------- */

static bool is_ip_literal(const char *h, size_t n)
{
    if (n >= 2 && h[0] == '[' && h[n - 1] == ']') return true; /* IPv6 */
    if (n == 0) return false;
    int dots = 0;
    for (size_t i = 0; i < n; i++) {
        if (h[i] == '.') {
            dots++;
        } else if (!isdigit((unsigned char)h[i])) {
            return false;
        }
    }
    return dots == 3;
}

static bool name_is(const char *h, size_t n, const char *name)
{
    return name && *name && strlen(name) == n && strncasecmp(h, name, n) == 0;
}

bool cs_ui_access_host_ok(const ui_access *a, const char *host)
{
    if (!host) return true;
    if (list_has(a->hosts, "*")) return true;
    /* the name without its port; an IPv6 literal keeps its brackets */
    size_t n = strlen(host);
    const char *colon = host[0] == '[' ? strchr(host, ']') : strchr(host, ':');
    if (host[0] == '[') {
        if (!colon) return false;
        n = (size_t)(colon - host) + 1;
    } else if (colon) {
        n = (size_t)(colon - host);
    }
    while (n > 0 && host[n - 1] == '.')
        n--; /* "localhost." is localhost */
    if (is_ip_literal(host, n) || name_is(host, n, "localhost") || name_is(host, n, a->hostname) ||
        name_is(host, n, a->driver_host))
        return true;
    if (a->driver_host && cs_str_ends_with(a->driver_host, ".svc") && n > 14 &&
        strncasecmp(host + n - 14, ".cluster.local", 14) == 0 &&
        name_is(host, n - 14, a->driver_host))
        return true;
    char name[256];
    if (n >= sizeof name) return false;
    memcpy(name, host, n);
    name[n] = '\0';
    return a->hosts && list_has(a->hosts, name);
}

/* ---- users ---------------------------------------------------------------------------------- */

bool cs_ui_access_needs_login(const ui_access *a)
{
    return a->num_users > 0 || a->num_tokens > 0;
}

bool cs_ui_access_accepts_basic(const ui_access *a)
{
    return a->num_users > 0;
}

bool cs_ui_access_accepts_bearer(const ui_access *a)
{
    return a->num_tokens > 0;
}

const char *cs_ui_access_token_user(const ui_access *a, const char *token)
{
    if (!token || !*token) return NULL;
    unsigned char digest[32];
    sha256(token, strlen(token), digest);
    const char *user = NULL;
    for (size_t i = 0; i < a->num_tokens; i++) /* every entry: no early exit */
        if (CRYPTO_memcmp(digest, a->tokens[i].digest, sizeof digest) == 0 && !user)
            user = a->tokens[i].user;
    return user;
}

bool cs_ui_access_login_ok(const ui_access *a, const char *user, const char *password)
{
    if (!user || !password) return false;
    const ui_user *u = NULL;
    for (size_t i = 0; i < a->num_users && !u; i++)
        if (strcmp(a->users[i].name, user) == 0) u = &a->users[i];
    if (!u) return false;
    struct crypt_data *cd = cs_xcalloc(1, sizeof *cd);
    const char *h = crypt_rn(password, u->hash, cd, (int)sizeof *cd);
    bool ok = false;
    size_t n = strlen(u->hash);
    if (h && strlen(h) == n) {
        unsigned diff = 0;
        for (size_t i = 0; i < n; i++)
            diff |= (unsigned)(h[i] ^ u->hash[i]);
        ok = diff == 0;
    }
    free(cd);
    return ok;
}

/* The value of key among the application's (history) properties, or NULL. */
static const char *store_prop(const ui_store *st, const char *key)
{
    for (size_t i = 0, n = cs_ui_store_num_props(st); i < n; i++) {
        const ui_prop *p = cs_ui_store_prop_at(st, i);
        if (strcmp(p->key, key) == 0) return p->value;
    }
    return NULL;
}

/* ---- groups -------------------------------------------------------------------------------- */

/* Whether one of the system groups of user (its primary group and those that name it) is in one
 * of the comma-separated lists (NULL: empty), or a list holds "*". A user the system does not
 * know has no groups, as `id -Gn` fails for it in Spark. */
static bool groups_match(const char *user, const char *const *lists, size_t num_lists)
{
    bool any = false;
    for (size_t i = 0; i < num_lists; i++) {
        if (list_has(lists[i], "*")) return true;
        any |= lists[i] != NULL;
    }
    if (!any || !user) return false;
    char buf[4096];
    struct passwd pw, *pwp = NULL;
    if (getpwnam_r(user, &pw, buf, sizeof buf, &pwp) != 0 || !pwp) return false;
    int ngroups = 64;
    gid_t *gids = NULL;
    for (;;) {
        gids = cs_xrealloc(gids, (size_t)ngroups * sizeof *gids);
        int want = ngroups;
        if (getgrouplist(user, pw.pw_gid, gids, &want) >= 0) {
            ngroups = want;
            break;
        }
        if (want <= ngroups || want > 65536) { /* no growth to hope for */
            ngroups = 0;
            break;
        }
        ngroups = want;
    }
    bool found = false;
    size_t cap = 4096;
    char *gbuf = cs_xmalloc(cap);
    for (int g = 0; g < ngroups && !found; g++) {
        struct group gr, *grp = NULL;
        int rc;
        while ((rc = getgrgid_r(gids[g], &gr, gbuf, cap, &grp)) == ERANGE && cap < (1u << 20)) {
            cap *= 2;
            gbuf = cs_xrealloc(gbuf, cap);
        }
        if (rc != 0 || !grp) continue;
        for (size_t i = 0; i < num_lists && !found; i++)
            found = lists[i] && list_has(lists[i], gr.gr_name);
    }
    free(gbuf);
    free(gids);
    return found;
}

bool cs_ui_access_can_view(const ui_access *a, const char *user, const ui_store *st)
{
    if (!a->acls) return true;
    if (!user) return false;
    if (list_has(a->admin, user)) return true;
    if (!a->history) {
        if (name_is(user, strlen(user), a->owner) || list_has(a->view, user)) return true;
        const char *groups[] = {a->admin_groups, a->view_groups};
        return groups_match(user, groups, 2);
    }
    if (!st) return true; /* the listing: Spark's history server shows every application */
    const ui_app *app = cs_ui_store_app(st);
    if ((app->user && strcmp(app->user, user) == 0) ||
        list_has(store_prop(st, "spark.ui.view.acls"), user) ||
        list_has(store_prop(st, "spark.admin.acls"), user))
        return true;
    /* as FsHistoryProvider: the server's admin groups and the application's own */
    const char *groups[] = {a->admin_groups, store_prop(st, "spark.admin.acls.groups"),
                            store_prop(st, "spark.ui.view.acls.groups")};
    return groups_match(user, groups, 3);
}

bool cs_ui_access_can_modify(const ui_access *a, const char *user)
{
    if (!a->acls) return true;
    if (!user || a->history) return false;
    if (list_has(a->admin, user) || name_is(user, strlen(user), a->owner) ||
        list_has(a->modify, user))
        return true;
    const char *groups[] = {a->admin_groups, a->modify_groups};
    return groups_match(user, groups, 2);
}
