/* ui_access.h — who may reach the UI server and what they may do: the Host check against DNS
 * rebinding, authentication (HTTP basic over an htpasswd users file, or bearer tokens) and Spark's
 * view/modify ACLs with their groups.
 *
 * Spark's semantics (SecurityManager): with spark.acls.enable (legacy spark.ui.acls.enable) false,
 * everyone may view and modify. With it true, a user may view when named in spark.ui.view.acls,
 * may kill jobs and stages when named in spark.modify.acls; spark.admin.acls and the application's
 * owner (SPARK_USER, else the login user) are in both; "*" in a list admits everyone. The groups
 * keys do the same for the user's groups: spark.ui.view.acls.groups, spark.modify.acls.groups and
 * spark.admin.acls.groups (in both), the groups being the user's system groups as Spark's default
 * spark.user.groups.mapping (ShellBasedGroupsMappingProvider, `id -Gn user`) finds them; another
 * mapping is refused at start. Spark takes the user from a servlet filter (spark.ui.filters);
 * cspark runs no Java filters and instead reads the user from
 *  - HTTP basic credentials checked against cspark.ui.auth.usersFile (lines "user:hash" as
 *    `htpasswd -B` or `openssl passwd -6` write them: any crypt(3) hash libxcrypt knows), or
 *  - an "Authorization: Bearer TOKEN" header looked up in cspark.ui.auth.tokensFile (lines
 *    "TOKEN USER", TOKEN being "sha256:" and the hex SHA-256 of the token, or the token itself);
 *    an unknown token is answered 401 with "WWW-Authenticate: Bearer ... error=invalid_token".
 * Refused at start, with one line naming the key: spark.ui.filters, HTTPS (spark.ssl.ui.enabled,
 * spark.ssl.historyServer.enabled or spark.ssl.enabled true), a spark.user.groups.mapping other
 * than Spark's default, and ACLs enabled with neither file (Spark would then let every
 * anonymous request through, which is no protection at all).
 * The history server (spark.history.ui.acls.enable, spark.history.ui.admin.acls and .groups)
 * checks each application against its own owner, spark.ui.view.acls, spark.admin.acls and their
 * .groups keys from its event log's environment, as Spark's history server does.
 *
 * Host check: a request whose Host names the server by an IP literal, "localhost", this machine's
 * name, spark.driver.host (and its ".cluster.local" form for a Kubernetes Service name) or one of
 * cspark.ui.allowedHosts ("*": any) is served; any other name is a page reached through DNS
 * rebinding and is answered 421. Browsers always send Host; a request without one is served.
 *
 * Called by ui_live.c and the history server to build the object from conf, and by ui_server.c on
 * its request threads (every function but _new/_free is thread-safe: the object is read-only).
 * Ownership: cs_ui_access_new returns an object the caller frees with cs_ui_access_free after the
 * server using it stopped.
 */
#ifndef CSPARK_UI_ACCESS_H
#define CSPARK_UI_ACCESS_H

#include <stdbool.h>

#include "common/conf.h"
#include "common/err.h"
#include "ui/app_status.h"

typedef struct ui_access ui_access;

/* Reads the settings of the live UI (history false: spark.acls.enable, spark.ui.view.acls,
 * spark.modify.acls, spark.admin.acls, owner) or of the history server (spark.history.ui.*), the
 * users and tokens files and the allowed hosts. NULL with err naming the key on a bad or
 * unsupported setting.
 */
ui_access *cs_ui_access_new(const cs_conf *conf, bool history, cs_error *err);
void cs_ui_access_free(ui_access *a);

/* Whether a request with this Host header (NULL: none) may be served. */
bool cs_ui_access_host_ok(const ui_access *a, const char *host);
/* Whether the server asks for credentials (a users or a tokens file is configured), and which
 * schemes it accepts. */
bool cs_ui_access_needs_login(const ui_access *a);
bool cs_ui_access_accepts_basic(const ui_access *a);
bool cs_ui_access_accepts_bearer(const ui_access *a);
/* The user a bearer token stands for (borrowed from a, valid until cs_ui_access_free), or NULL
 * when the tokens file does not hold it. The digests are compared in constant time. */
const char *cs_ui_access_token_user(const ui_access *a, const char *token);
/* Whether user/password are in the users file; false for NULLs. */
bool cs_ui_access_login_ok(const ui_access *a, const char *user, const char *password);
/* Whether user (NULL: anonymous) may view the UI; in history mode st (locked by the caller) is
 * the application asked for, NULL for pages of no application. */
bool cs_ui_access_can_view(const ui_access *a, const char *user, const ui_store *st);
/* Whether user may kill jobs and stages (live UI only). */
bool cs_ui_access_can_modify(const ui_access *a, const char *user);

#endif /* CSPARK_UI_ACCESS_H */
