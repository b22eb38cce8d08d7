/*
 * cluster_manager.c — the registry of cluster managers (see cluster_manager.h) and the helpers
 * the process-based managers share. Adding a manager: its folder under src/cluster/ defines a
 * `const cluster_manager`, and one row below names it.
 */
#include "cluster/cluster_manager.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "common/conf_entries.h"
#include "exec/decom_signals.h"
#include "rpc/auth.h"

extern const cluster_manager cs_local_manager;
extern const cluster_manager cs_local_cluster_manager;
extern const cluster_manager cs_k8s_manager;

static const cluster_manager *const managers[] = {
    &cs_local_manager,         /* local, local[N], local[*], local[N,F] */
    &cs_local_cluster_manager, /* local-cluster[N,C,M] */
    &cs_k8s_manager,           /* k8s://host:port */
};

const cluster_manager *cs_cluster_manager_for(const char *master_url)
{
    for (size_t i = 0; i < sizeof managers / sizeof managers[0]; i++)
        if (managers[i]->can_create(master_url)) return managers[i];
    return NULL;
}

const char *cs_cluster_master_url(const cs_conf *conf)
{
    const char *in_pod = cs_conf_entry_string(conf, "spark.kubernetes.driver.master");
    if (cs_conf_get(conf, "spark.kubernetes.submitInDriver") && in_pod &&
        strncmp(in_pod, "local", 5) == 0 && (in_pod[5] == '\0' || in_pod[5] == '['))
        return in_pod;
    return cs_conf_entry_string(conf, "spark.master");
}

static int app_secret(cs_conf *conf, char **secret, cs_error *err)
{
    bool auth;
    *secret = NULL;
    cs_conf_entry_set_defaults_in(conf, CS_CONF_IN_CLUSTER); /* spark.authenticate=true */
    if (cs_conf_entry_bool(conf, "spark.authenticate", &auth, err) < 0) return err->code;
    if (!auth) return 0;
    cs_error e2;
    cs_error_clear(&e2);
    if (cs_auth_secret_load(conf, secret, &e2) < 0 && e2.code != CS_ENOTFOUND) {
        *err = e2;
        return err->code;
    }
    if (!*secret) *secret = cs_auth_secret_generate();
    return 0;
}

static int check_decommission(const cs_conf *conf, cs_error *err)
{
    const char *name = cs_conf_get(conf, "spark.executor.decommission.signal");
    int sig;
    return name && cs_decom_signals_parse(name, &sig, err) < 0 ? err->code : 0;
}

sched_backend *cs_cluster_create_with_secret(const cluster_env *env,
                                             cluster_backend_new_fn new_backend, cs_error *err)
{
    char *secret;
    if (check_decommission(env->conf, err) < 0 || app_secret(env->conf, &secret, err) < 0)
        return NULL;
    sched_backend *b = new_backend(env, secret, err);
    cs_auth_secret_free(secret);
    if (!b && !err->code) err->code = CS_EIO;
    return b;
}

int cs_cluster_max_executor_failures(const cs_conf *conf, int64_t wanted, int *out, cs_error *err)
{
    char dflt[24];
    long long twice = 2 * wanted < INT32_MAX ? 2 * wanted : INT32_MAX;
    snprintf(dflt, sizeof dflt, "%lld", twice > 3 ? twice : 3);
    int64_t v;
    if (cs_conf_get_int(conf, "spark.executor.maxNumFailures", dflt, &v, err) < 0) return err->code;
    *out = (int)(v < 1 ? 1 : v > INT32_MAX ? INT32_MAX : v);
    return 0;
}
