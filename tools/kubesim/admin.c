/* kubesim admin endpoints: /healthz, /livez, /readyz, /metrics (Prometheus text),
 * /kubesim/pod-history and /kubesim/faults (GET, POST/PUT to merge settings, DELETE to clear).
 * Called by server.c for paths outside /api. */
#define _GNU_SOURCE
#include "server_int.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------- admin ---------- */

enum MHD_Result ks_admin_handle(ks_server *s, struct MHD_Connection *c, const char *url,
                                const char *method, const ks_req_ctx *rc, int *code)
{
    *code = 200;
    if (!strcmp(url, "/healthz") || !strcmp(url, "/livez") || !strcmp(url, "/readyz"))
        return ks_send_text(c, 200, "text/plain", strdup("ok"), 2, NULL);
    if (!strcmp(url, "/metrics")) {
        char *m = ks_metrics_render(s->o.metrics);
        return ks_send_text(c, 200, "text/plain; version=0.0.4", m, m ? strlen(m) : 0, NULL);
    }
    if (!strcmp(url, "/kubesim/pod-history"))
        return ks_send_json(c, 200, ks_store_pod_history(s->o.store));
    if (!strcmp(url, "/kubesim/faults")) {
        /* fault injection takes the cluster down: the admin's token only */
        const char *user = ks_rbac_authenticate(s->o.rbac, ks_header(c, "Authorization"));
        if (!user) {
            *code = 401;
            return ks_send_status(c, 401, "Unauthorized", "Unauthorized", NULL);
        }
        if (strcmp(user, KS_RBAC_ADMIN_USER)) {
            char msg[512];
            snprintf(msg, sizeof msg, "forbidden: User \"%s\" cannot %s path \"/kubesim/faults\"",
                     user, !strcmp(method, "GET") ? "get" : "update");
            *code = 403;
            return ks_send_status(c, 403, "Forbidden", msg, NULL);
        }
        if (!strcmp(method, "GET")) return ks_send_json(c, 200, ks_faults_json(s->o.faults));
        if (!strcmp(method, "DELETE")) {
            ks_faults_cfg z = {.retry_after_s = 1};
            ks_faults_set(s->o.faults, &z);
            return ks_send_json(c, 200, ks_faults_json(s->o.faults));
        }
        if (!strcmp(method, "POST") || !strcmp(method, "PUT")) {
            json_error_t je;
            json_t *j = rc->body ? json_loadb(rc->body, rc->len, 0, &je) : NULL;
            char err[512];
            int expire = 0;
            if (!j || ks_faults_apply_json(s->o.faults, j, &expire, err, sizeof err) < 0) {
                if (!j)
                    snprintf(err, sizeof err, "json parse error: %s",
                             rc->body ? je.text : "empty body");
                json_decref(j);
                *code = 400;
                return ks_send_status(c, 400, "BadRequest", err, NULL);
            }
            json_decref(j);
            if (expire) ks_store_expire_all(s->o.store);
            return ks_send_json(c, 200, ks_faults_json(s->o.faults));
        }
        *code = 405;
        return ks_send_status(c, 405, "MethodNotAllowed", "use GET, POST, PUT or DELETE", NULL);
    }
    *code = 404;
    return ks_send_status(c, 404, "NotFound", "the server could not find the requested resource",
                          NULL);
}
