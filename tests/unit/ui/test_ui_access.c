/* test_ui_access.c — who the UI server lets in (ui/ui_access.c through ui/ui_server.c, over real
 * HTTP on loopback): a Host name it does not serve is refused (DNS rebinding), a users file makes
 * every request log in, spark.acls.enable limits viewing to spark.ui.view.acls and killing to
 * spark.modify.acls (admins and the owner in both), the history server checks each application's
 * own ACLs, the .groups keys admit the members of the system groups they name, bearer tokens from
 * a tokens file log in as their user (an unknown one: 401 naming invalid_token), keys cspark cannot
 * honour stop the start with a line naming them, and the live UI binds 127.0.0.1 outside a pod.
 * Regressions of issue 21 item 9: before it every request was served; the groups keys were
 * refused and a bearer token was not understood. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <crypt.h>
#include <curl/curl.h>
#include <grp.h>
#include <pwd.h>

#include "common/conf.h"
#include "ui/app_status.h"
#include "ui/ui_access.h"
#include "ui/ui_live.h"
#include "ui/ui_server.h"

#define APP "app-20260101-0042"

typedef struct fixture {
    ui_store *st;
    ui_access *access;
    ui_server *srv;
    int killed_job;
    char base[64];
    char users_path[64];
} fixture;

static size_t one_list(void *arg, ui_app_entry **out)
{
    (void)arg;
    ui_app_entry *e = calloc(1, sizeof *e);
    e->id = strdup(APP);
    e->name = strdup("acl app");
    e->user = strdup("alice");
    e->version = strdup("4.1.0");
    *out = e;
    return 1;
}

static ui_store *one_acquire(void *arg, const char *id, int64_t *updated)
{
    fixture *f = arg;
    *updated = 0;
    return strcmp(id, APP) == 0 ? f->st : NULL;
}

static void one_release(void *arg, ui_store *st)
{
    (void)arg, (void)st;
}

static void kill_job(void *arg, int id)
{
    ((fixture *)arg)->killed_job = id;
}

/* The application alice ran, whose own conf lets bob view it. */
static ui_store *acl_app_store(void)
{
    ui_store *st = cs_ui_store_new(NULL);
    cs_event ev = {.kind = CS_EV_APPLICATION_START,
                   .app_id = APP,
                   .app_name = "acl app",
                   .user = "alice",
                   .time_ms = 1000};
    cs_ui_store_listener(st, &ev);
    cs_conf *conf = cs_conf_new();
    cs_conf_set(conf, "spark.ui.view.acls", "bob");
    ev = (cs_event){.kind = CS_EV_ENVIRONMENT_UPDATE, .conf = conf, .time_ms = 1001};
    cs_ui_store_listener(st, &ev);
    cs_conf_free(conf);
    return st;
}

/* The user this test runs as (a system user with groups), its primary group, and a system user
 * that is not in that group (NULL when the machine has none). */
static char me[64], my_group[64], other_user[64];

static void find_system_users(void)
{
    struct passwd *pw = getpwuid(getuid());
    assert_non_null(pw);
    snprintf(me, sizeof me, "%s", pw->pw_name);
    gid_t gid = pw->pw_gid;
    struct group *gr = getgrgid(gid);
    assert_non_null(gr);
    snprintf(my_group, sizeof my_group, "%s", gr->gr_name);
    other_user[0] = '\0';
    setpwent();
    while ((pw = getpwent())) {
        if (pw->pw_gid == gid || strcmp(pw->pw_name, me) == 0) continue;
        gid_t groups[256];
        int n = 256;
        if (getgrouplist(pw->pw_name, pw->pw_gid, groups, &n) < 0) continue;
        bool member = false;
        for (int i = 0; i < n; i++)
            member |= groups[i] == gid;
        if (member) continue;
        snprintf(other_user, sizeof other_user, "%s", pw->pw_name);
        break;
    }
    endpwent();
}

/* A users file: every user's password is its name reversed. */
static void write_users(char *path, size_t cap)
{
    snprintf(path, cap, "/tmp/cspark-ui-users-XXXXXX");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *fp = fdopen(fd, "w");
    const char *const users[] = {"alice", "bob", "carol", "dave", "root", me, other_user};
    fputs("# cspark UI users\n\n", fp);
    for (size_t i = 0; i < sizeof users / sizeof users[0]; i++) {
        bool seen = !*users[i];
        for (size_t j = 0; j < i; j++)
            seen |= strcmp(users[i], users[j]) == 0;
        if (seen) continue;
        char pw[64];
        size_t n = strlen(users[i]);
        for (size_t j = 0; j < n; j++)
            pw[j] = users[i][n - 1 - j];
        pw[n] = '\0';
        char salt[CRYPT_GENSALT_OUTPUT_SIZE];
        assert_non_null(crypt_gensalt_rn("$6$", 0, NULL, 0, salt, sizeof salt));
        struct crypt_data *cd = calloc(1, sizeof *cd);
        fprintf(fp, "%s:%s\n", users[i], crypt_rn(pw, salt, cd, (int)sizeof *cd));
        free(cd);
    }
    fclose(fp);
}

static fixture *start(bool history, const char *const *kv)
{
    fixture *f = calloc(1, sizeof *f);
    f->killed_job = -1;
    write_users(f->users_path, sizeof f->users_path);
    cs_conf *conf = cs_conf_new();
    cs_conf_set(conf, "cspark.ui.auth.usersFile", f->users_path);
    for (; kv && kv[0]; kv += 2)
        cs_conf_set(conf, kv[0], kv[1]);
    setenv("SPARK_USER", "alice", 1);
    cs_error err = {0};
    f->access = cs_ui_access_new(conf, history, &err);
    cs_conf_free(conf);
    assert_non_null(f->access);
    f->st = acl_app_store();
    ui_server_options o = {.bind_host = "127.0.0.1",
                           .port_key = "spark.ui.port",
                           .kill_enabled = true,
                           .history = history,
                           .live_app_id = history ? NULL : APP,
                           .history_dir = "/nowhere",
                           .threads = 2,
                           .access = f->access};
    ui_provider p = {f, one_list, one_acquire, one_release};
    ui_hooks h = {f, kill_job, NULL, NULL, NULL};
    f->srv = cs_ui_server_start(&o, &p, &h, &err);
    assert_non_null(f->srv);
    snprintf(f->base, sizeof f->base, "http://127.0.0.1:%d", cs_ui_server_port(f->srv));
    return f;
}

static void stop(fixture *f)
{
    cs_ui_server_stop(f->srv);
    cs_ui_access_free(f->access);
    cs_ui_store_free(f->st);
    unlink(f->users_path);
    free(f);
}

static size_t discard(char *p, size_t size, size_t n, void *arg)
{
    (void)p, (void)arg;
    return size * n;
}

/* The WWW-Authenticate headers of the last response, one per line. */
static char challenges[512];

static size_t keep_challenge(char *p, size_t size, size_t n, void *arg)
{
    (void)arg;
    size_t len = size * n;
    if (len > 17 && strncasecmp(p, "WWW-Authenticate:", 17) == 0 &&
        strlen(challenges) + len < sizeof challenges)
        strncat(challenges, p, len);
    return len;
}

/* The status of a GET (form NULL) or POST as user (NULL: no credentials; the password is the
 * name reversed unless wrong_password), with an optional extra header. */
static long http(const fixture *f, const char *path, const char *form, const char *user,
                 bool wrong_password, const char *header)
{
    challenges[0] = '\0';
    char url[600], userpwd[160];
    snprintf(url, sizeof url, "%s%s", f->base, path);
    CURL *c = curl_easy_init();
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, discard);
    curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, keep_challenge);
    if (user) {
        size_t n = strlen(user), k = snprintf(userpwd, sizeof userpwd, "%s:", user);
        for (size_t j = 0; j < n; j++)
            userpwd[k + j] = user[n - 1 - j];
        userpwd[k + n] = '\0';
        if (wrong_password) strcat(userpwd, "x");
        curl_easy_setopt(c, CURLOPT_USERPWD, userpwd);
    }
    struct curl_slist *hdr = header ? curl_slist_append(NULL, header) : NULL;
    if (hdr) curl_easy_setopt(c, CURLOPT_HTTPHEADER, hdr);
    if (form) curl_easy_setopt(c, CURLOPT_POSTFIELDS, form);
    assert_int_equal(curl_easy_perform(c), CURLE_OK);
    long status = 0;
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
    curl_slist_free_all(hdr);
    curl_easy_cleanup(c);
    return status;
}

static long kill_as(const fixture *f, const char *user)
{
    char form[128];
    snprintf(form, sizeof form, "id=3&csrf=%s", cs_ui_server_csrf_token(f->srv));
    return http(f, "/jobs/job/kill/", form, user, false, NULL);
}

/* GET path (or the kill POST when path is NULL) with "Authorization: Bearer token". */
static long as_bearer(const fixture *f, const char *path, const char *token)
{
    char header[256], form[128];
    snprintf(header, sizeof header, "Authorization: Bearer %s", token);
    snprintf(form, sizeof form, "id=3&csrf=%s", cs_ui_server_csrf_token(f->srv));
    return http(f, path ? path : "/jobs/job/kill/", path ? NULL : form, NULL, false, header);
}

static void test_host_not_served_is_refused(void **state)
{
    (void)state;
    fixture *f = start(false, NULL);
    char host[80];
    snprintf(host, sizeof host, "Host: rebind.attacker.example:%d", cs_ui_server_port(f->srv));
    assert_int_equal(http(f, "/jobs/", NULL, "alice", false, host), 421);
    assert_int_equal(http(f, "/api/v1/applications", NULL, "alice", false, host), 421);
    /* a kill through a rebound name, even with the page's token (its Origin would match Host) */
    char form[128];
    snprintf(form, sizeof form, "id=3&csrf=%s", cs_ui_server_csrf_token(f->srv));
    assert_int_equal(http(f, "/jobs/job/kill/", form, "alice", false, host), 421);
    assert_int_equal(f->killed_job, -1);
    assert_int_equal(http(f, "/jobs/", NULL, "alice", false, NULL), 200); /* 127.0.0.1:port */
    assert_int_equal(http(f, "/jobs/", NULL, "alice", false, "Host: localhost"), 200);
    assert_int_equal(http(f, "/jobs/", NULL, "alice", false, "Host: [::1]:4040"), 200);
    stop(f);
    static const char *const allowed[] = {"cspark.ui.allowedHosts", "ui.example.org, other", NULL};
    f = start(false, allowed);
    assert_int_equal(http(f, "/jobs/", NULL, "alice", false, "Host: ui.example.org:4040"), 200);
    assert_int_equal(http(f, "/jobs/", NULL, "alice", false, "Host: ui.example.org.evil"), 421);
    stop(f);
}

static void test_users_file_requires_login(void **state)
{
    (void)state;
    fixture *f = start(false, NULL);
    assert_int_equal(http(f, "/jobs/", NULL, NULL, false, NULL), 401);
    assert_int_equal(http(f, "/metrics/prometheus", NULL, NULL, false, NULL), 401);
    assert_int_equal(http(f, "/jobs/", NULL, "bob", true, NULL), 401);
    assert_int_equal(http(f, "/jobs/", NULL, "mallory", false, NULL), 401);
    /* ACLs off: any user of the file may view and kill (Spark's default) */
    assert_int_equal(http(f, "/jobs/", NULL, "carol", false, NULL), 200);
    assert_int_equal(kill_as(f, "carol"), 303);
    assert_int_equal(f->killed_job, 3);
    stop(f);
}

static void test_acls_limit_view_and_kill(void **state)
{
    (void)state;
    static const char *const acls[] = {"spark.acls.enable",
                                       "true",
                                       "spark.ui.view.acls",
                                       "bob, carol",
                                       "spark.modify.acls",
                                       "carol",
                                       "spark.admin.acls",
                                       "root",
                                       NULL};
    fixture *f = start(false, acls);
    /* bob views but may not kill */
    assert_int_equal(http(f, "/jobs/", NULL, "bob", false, NULL), 200);
    assert_int_equal(http(f, "/api/v1/applications/" APP "/jobs", NULL, "bob", false, NULL), 200);
    assert_int_equal(kill_as(f, "bob"), 403);
    assert_int_equal(f->killed_job, -1);
    /* dave is in no list */
    assert_int_equal(http(f, "/jobs/", NULL, "dave", false, NULL), 403);
    assert_int_equal(http(f, "/metrics/prometheus", NULL, "dave", false, NULL), 403);
    assert_int_equal(kill_as(f, "dave"), 403);
    assert_int_equal(f->killed_job, -1);
    /* carol may modify (every request needs view rights first, as Spark's HttpSecurityFilter) */
    assert_int_equal(kill_as(f, "carol"), 303);
    assert_int_equal(f->killed_job, 3);
    f->killed_job = -1;
    /* the owner and an admin do both */
    assert_int_equal(http(f, "/jobs/", NULL, "alice", false, NULL), 200);
    assert_int_equal(kill_as(f, "alice"), 303);
    assert_int_equal(http(f, "/stages/", NULL, "root", false, NULL), 200);
    assert_int_equal(kill_as(f, "root"), 303);
    stop(f);
    static const char *const everyone[] = {"spark.acls.enable", "true", "spark.ui.view.acls", "*",
                                           NULL};
    f = start(false, everyone);
    assert_int_equal(http(f, "/jobs/", NULL, "dave", false, NULL), 200);
    assert_int_equal(kill_as(f, "dave"), 403);
    stop(f);
}

static void test_history_checks_each_application(void **state)
{
    (void)state;
    static const char *const acls[] = {"spark.history.ui.acls.enable", "true",
                                       "spark.history.ui.admin.acls", "root", NULL};
    fixture *f = start(true, acls);
    assert_int_equal(http(f, "/", NULL, "dave", false, NULL), 200); /* the listing */
    assert_int_equal(http(f, "/history/" APP "/jobs/", NULL, "dave", false, NULL), 403);
    assert_int_equal(http(f, "/api/v1/applications/" APP "/jobs", NULL, "dave", false, NULL), 403);
    assert_int_equal(http(f, "/history/" APP "/jobs/", NULL, "bob", false, NULL), 200);
    assert_int_equal(http(f, "/history/" APP "/jobs/", NULL, "alice", false, NULL), 200);
    assert_int_equal(http(f, "/api/v1/applications/" APP "/jobs", NULL, "root", false, NULL), 200);
    stop(f);
}

/* The system groups of a user: view and modify rights by group, as Spark's SecurityManager. */
static void test_acl_groups_admit_group_members(void **state)
{
    (void)state;
    const char *const view_only[] = {"spark.acls.enable",
                                     "true",
                                     "spark.ui.view.acls",
                                     "bob",
                                     "spark.ui.view.acls.groups",
                                     my_group,
                                     NULL};
    fixture *f = start(false, view_only);
    assert_int_equal(http(f, "/jobs/", NULL, me, false, NULL), 200);
    assert_int_equal(http(f, "/api/v1/applications/" APP "/stages", NULL, me, false, NULL), 200);
    if (strcmp(me, "alice") != 0) assert_int_equal(kill_as(f, me), 403); /* view only */
    assert_int_equal(http(f, "/jobs/", NULL, "dave", false, NULL), 403); /* no system user */
    if (*other_user) assert_int_equal(http(f, "/jobs/", NULL, other_user, false, NULL), 403);
    assert_int_equal(f->killed_job, -1);
    stop(f);
    char groups[160];
    snprintf(groups, sizeof groups, "nosuchgroup-cspark, %s", my_group);
    const char *const kill_group[] = {"spark.acls.enable",
                                      "true",
                                      "spark.ui.view.acls.groups",
                                      groups,
                                      "spark.modify.acls.groups",
                                      groups,
                                      NULL};
    f = start(false, kill_group);
    assert_int_equal(kill_as(f, me), 303);
    assert_int_equal(f->killed_job, 3);
    f->killed_job = -1;
    if (*other_user) assert_int_equal(kill_as(f, other_user), 403);
    assert_int_equal(kill_as(f, "dave"), 403);
    assert_int_equal(f->killed_job, -1);
    stop(f);
    const char *const admin_group[] = {"spark.acls.enable", "true", "spark.admin.acls.groups",
                                       my_group, NULL};
    f = start(false, admin_group);
    assert_int_equal(http(f, "/stages/", NULL, me, false, NULL), 200);
    assert_int_equal(kill_as(f, me), 303);
    if (*other_user) assert_int_equal(kill_as(f, other_user), 403);
    stop(f);
    const char *const every_group[] = {"spark.acls.enable", "true", "spark.ui.view.acls.groups",
                                       "*", NULL};
    f = start(false, every_group);
    assert_int_equal(http(f, "/jobs/", NULL, "dave", false, NULL), 200);
    assert_int_equal(kill_as(f, "dave"), 403);
    stop(f);
    /* the history server: its admin groups, each application's own view and admin groups */
    const char *const history[] = {"spark.history.ui.acls.enable", "true",
                                   "spark.history.ui.admin.acls.groups", my_group, NULL};
    f = start(true, history);
    assert_int_equal(http(f, "/history/" APP "/jobs/", NULL, me, false, NULL), 200);
    assert_int_equal(http(f, "/history/" APP "/jobs/", NULL, "dave", false, NULL), 403);
    if (*other_user)
        assert_int_equal(http(f, "/history/" APP "/jobs/", NULL, other_user, false, NULL), 403);
    stop(f);
    const char *const history_off[] = {"spark.history.ui.acls.enable", "true", NULL};
    f = start(true, history_off);
    if (strcmp(me, "alice") != 0 && strcmp(me, "bob") != 0) {
        assert_int_equal(http(f, "/history/" APP "/jobs/", NULL, me, false, NULL), 403);
        cs_conf *conf = cs_conf_new();
        cs_conf_set(conf, "spark.ui.view.acls.groups", my_group);
        cs_event ev = {.kind = CS_EV_ENVIRONMENT_UPDATE, .conf = conf, .time_ms = 1002};
        cs_ui_store_listener(f->st, &ev);
        cs_conf_free(conf);
        assert_int_equal(http(f, "/history/" APP "/jobs/", NULL, me, false, NULL), 200);
    }
    stop(f);
}

static void refused_with(const char *key, const char *value, bool history, const char *words);

/* A tokens file: one token stored as its SHA-256, one as itself. */
#define CAROL_TOKEN "c4r0l-t0ken-0123456789abcdef"
#define BOB_TOKEN "plain-token-for-bob-0001"

static void write_tokens(char *path, size_t cap)
{
    snprintf(path, cap, "/tmp/cspark-ui-tokens-XXXXXX");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *fp = fdopen(fd, "w");
    /* printf %s c4r0l-t0ken-0123456789abcdef | sha256sum */
    fputs("# cspark UI tokens\n"
          "sha256:e6e0d4c8a8b7ac9da9da4b93f1f5c8b59a3d2f3a44ed2c72a1ec5a4a0a2ea7c0 mallory\n",
          fp);
    fclose(fp);
    char cmd[256];
    snprintf(cmd, sizeof cmd,
             "printf 'sha256:%%s carol\\n' $(printf %%s '%s' | sha256sum | cut -d' ' -f1) >> %s",
             CAROL_TOKEN, path);
    assert_int_equal(system(cmd), 0);
    fp = fopen(path, "a");
    fputs("  " BOB_TOKEN "\tbob",
          fp); /* the last line has no '\n': ended in place, not past the data */
    fclose(fp);
}

static void test_bearer_tokens_log_in(void **state)
{
    (void)state;
    char tokens[64];
    write_tokens(tokens, sizeof tokens);
    const char *const acls[] = {"cspark.ui.auth.tokensFile",
                                tokens,
                                "spark.acls.enable",
                                "true",
                                "spark.ui.view.acls",
                                "bob, carol",
                                "spark.modify.acls",
                                "carol",
                                NULL};
    fixture *f = start(false, acls);
    /* the UI, the REST API and the metrics */
    assert_int_equal(as_bearer(f, "/jobs/", CAROL_TOKEN), 200);
    assert_int_equal(as_bearer(f, "/api/v1/applications/" APP "/jobs", BOB_TOKEN), 200);
    assert_int_equal(as_bearer(f, "/metrics/prometheus", BOB_TOKEN), 200);
    /* the token's user is the one the ACLs check */
    assert_int_equal(as_bearer(f, NULL, BOB_TOKEN), 403);
    assert_int_equal(f->killed_job, -1);
    assert_int_equal(as_bearer(f, NULL, CAROL_TOKEN), 303);
    assert_int_equal(f->killed_job, 3);
    /* an unknown token, a token's hash sent as the token, a prefix of a token */
    assert_int_equal(as_bearer(f, "/jobs/", "no-such-token-at-all-000"), 401);
    assert_non_null(strstr(challenges, "Bearer realm=\"cspark\", error=\"invalid_token\""));
    assert_int_equal(as_bearer(f, "/api/v1/applications", "plain-token-for-bob"), 401);
    assert_int_equal(as_bearer(f, "/jobs/", ""), 401);
    /* no credentials: both schemes offered; basic still works beside tokens */
    assert_int_equal(http(f, "/jobs/", NULL, NULL, false, NULL), 401);
    assert_non_null(strstr(challenges, "Basic realm="));
    assert_non_null(strstr(challenges, "Bearer realm=\"cspark\""));
    assert_int_equal(http(f, "/jobs/", NULL, "bob", false, NULL), 200);
    stop(f);
    /* tokens alone are a way to tell users apart; basic is then not offered */
    const char *const tokens_only[] = {"cspark.ui.auth.usersFile",
                                       "",
                                       "cspark.ui.auth.tokensFile",
                                       tokens,
                                       "spark.acls.enable",
                                       "true",
                                       "spark.ui.view.acls",
                                       "bob",
                                       NULL};
    f = start(false, tokens_only);
    assert_int_equal(as_bearer(f, "/jobs/", BOB_TOKEN), 200);
    assert_int_equal(as_bearer(f, "/jobs/", CAROL_TOKEN), 403);
    assert_int_equal(http(f, "/jobs/", NULL, "bob", false, NULL), 401);
    assert_null(strstr(challenges, "Basic"));
    assert_non_null(strstr(challenges, "Bearer"));
    stop(f);
    /* the history server */
    const char *const history[] = {"cspark.ui.auth.tokensFile", tokens,
                                   "spark.history.ui.acls.enable", "true", NULL};
    f = start(true, history);
    assert_int_equal(as_bearer(f, "/api/v1/applications", CAROL_TOKEN), 200);
    assert_int_equal(as_bearer(f, "/history/" APP "/jobs/", BOB_TOKEN), 200); /* bob's view acl */
    assert_int_equal(as_bearer(f, "/api/v1/applications/" APP "/jobs", CAROL_TOKEN), 403);
    assert_int_equal(as_bearer(f, "/api/v1/applications/" APP "/jobs", "not-a-token-1234567"), 401);
    assert_non_null(strstr(challenges, "invalid_token"));
    stop(f);
    unlink(tokens);
    /* a plain token shorter than 16 characters is refused, naming the file and the line */
    FILE *fp = fopen(tokens, "w");
    fputs("# short\nsecret bob\n", fp);
    fclose(fp);
    refused_with("cspark.ui.auth.tokensFile", tokens, false, "line 2");
    unlink(tokens);
}

static void refused_with(const char *key, const char *value, bool history, const char *words)
{
    cs_conf *conf = cs_conf_new();
    cs_conf_set(conf, key, value);
    cs_error err = {0};
    ui_access *a = cs_ui_access_new(conf, history, &err);
    cs_conf_free(conf);
    if (a) fail_msg("%s=%s was accepted", key, value);
    if (!strstr(err.msg, words)) fail_msg("'%s' does not say '%s'", err.msg, words);
}

static void test_unsupported_keys_stop_the_start(void **state)
{
    (void)state;
    refused_with("spark.ui.filters", "org.example.AuthFilter", false, "spark.ui.filters");
    refused_with("spark.acls.enable", "true", false, "cspark.ui.auth.usersFile");
    refused_with("spark.ui.acls.enable", "true", false, "cspark.ui.auth.usersFile");
    refused_with("spark.history.ui.acls.enable", "true", true, "cspark.ui.auth.usersFile");
    refused_with("spark.ssl.enabled", "true", false, "spark.ssl.enabled");
    refused_with("spark.ssl.ui.enabled", "true", false, "TLS-terminating proxy");
    refused_with("spark.ssl.historyServer.enabled", "true", true, "spark.ssl.historyServer");
    refused_with("spark.ssl.enabled", "yes please", true, "spark.ssl.enabled");
    refused_with("spark.user.groups.mapping", "org.example.LdapGroups", false,
                 "spark.user.groups.mapping");
    refused_with("cspark.ui.auth.tokensFile", "/nonexistent/tokens", false, "/nonexistent/tokens");
    refused_with("spark.acls.enable", "maybe", false, "spark.acls.enable");
    refused_with("cspark.ui.auth.usersFile", "/nonexistent/users", false, "/nonexistent/users");
}

static void test_live_ui_binds_loopback_outside_a_pod(void **state)
{
    (void)state;
    unsetenv("SPARK_DRIVER_BIND_ADDRESS");
    unsetenv("SPARK_LOCAL_IP");
    unsetenv("KUBERNETES_SERVICE_HOST");
    cs_conf *conf = cs_conf_new();
    assert_string_equal(cs_ui_live_bind_host(conf), "127.0.0.1");
    setenv("SPARK_LOCAL_IP", "10.1.2.3", 1);
    assert_string_equal(cs_ui_live_bind_host(conf), "10.1.2.3");
    unsetenv("SPARK_LOCAL_IP");
    setenv("KUBERNETES_SERVICE_HOST", "10.96.0.1", 1);
    assert_null(cs_ui_live_bind_host(conf)); /* every address: the Service needs it */
    setenv("SPARK_DRIVER_BIND_ADDRESS", "10.244.0.7", 1);
    cs_conf_set(conf, "spark.driver.bindAddress", "10.244.0.7");
    assert_null(cs_ui_live_bind_host(conf)); /* the pod's IP: every address, for port-forward */
    unsetenv("KUBERNETES_SERVICE_HOST");
    unsetenv("SPARK_DRIVER_BIND_ADDRESS");
    cs_conf_set(conf, "spark.driver.bindAddress", "0.0.0.0");
    assert_string_equal(cs_ui_live_bind_host(conf), "0.0.0.0");
    cs_conf_free(conf);
}

int main(void)
{
    curl_global_init(CURL_GLOBAL_DEFAULT);
    find_system_users();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_host_not_served_is_refused),
        cmocka_unit_test(test_users_file_requires_login),
        cmocka_unit_test(test_acls_limit_view_and_kill),
        cmocka_unit_test(test_history_checks_each_application),
        cmocka_unit_test(test_acl_groups_admit_group_members),
        cmocka_unit_test(test_bearer_tokens_log_in),
        cmocka_unit_test(test_unsupported_keys_stop_the_start),
        cmocka_unit_test(test_live_ui_binds_loopback_outside_a_pod),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    curl_global_cleanup();
    return rc;
}
