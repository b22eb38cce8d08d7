/*
 * kubelet_sched.c — kubesim's own scheduler (kubesim has no kube-scheduler; a node agent serving a
 * real API server never calls it): binds a pod to the node with the most free memory among those
 * that fit its requests and match its nodeSelector, keeps it Pending with PodScheduled=False /
 * Unschedulable and the scheduler's message otherwise (also while a PersistentVolumeClaim it
 * mounts does not exist), retries unschedulable pods in arrival order when capacity frees; and the
 * per-node accounting of requests and pod addresses. Called by kubelet.c and kubelet_run.c on the
 * worker thread.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "kubelet_int.h"

#include <errno.h>
#include <stdarg.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

void kl_alloc_ip(kpod *p)
{
    knode *n = p->node;
    if (json_is_true(json_object_get(p->spec, "hostNetwork"))) {
        snprintf(p->ip, sizeof p->ip, "%s",
                 n->host_ip); /* the node's address, as with hostNetwork */
        return;
    }
    if (n->pod_cidr[0]) {
        if (kl_net_alloc_ip(n, p->ip, sizeof p->ip) == 0) p->own_ip = 1;
        return;
    }
    unsigned v;
    do {
        v = n->next_ip++;
    } while ((v & 0xFF) == 0 || (v & 0xFF) == 255 || v < 2);
    snprintf(p->ip, sizeof p->ip, "127.%d.%u.%u", n->octet, (v >> 8) & 0xFF, v & 0xFF);
}

void kl_pod_release(kpod *p)
{
    if (p->own_ip) {
        kl_net_free_ip(p->node, p->ip);
        p->own_ip = 0;
    }
    if (p->node && p->state != POD_DONE) {
        p->node->cpu_used -= p->cpu_req;
        p->node->mem_used -= p->mem_req;
        p->node->ext_used -= p->ext_req;
        p->node->pods_used--;
    }
}

static int node_selector_ok(const kpod *p, const knode *n)
{
    const json_t *sel = json_object_get(p->spec, "nodeSelector");
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)sel, key, v)
    {
        const char *want = json_string_value(v);
        const char *have = NULL;
        if (!strcmp(key, "kubernetes.io/hostname"))
            have = n->name;
        else if (!strcmp(key, "kubernetes.io/os") || !strcmp(key, "beta.kubernetes.io/os"))
            have = "linux";
        else if (!strcmp(key, "kubernetes.io/arch") || !strcmp(key, "beta.kubernetes.io/arch"))
            have = "amd64";
        if (!have || !want || strcmp(have, want)) return 0;
    }
    return 1;
}

static void bind_to(kpod *p, knode *n)
{
    p->node = n;
    n->cpu_used += p->cpu_req;
    n->mem_used += p->mem_req;
    n->ext_used += p->ext_req;
    n->pods_used++;
}

/* The first persistentVolumeClaim the pod mounts that does not exist (borrowed from the spec), or
 * NULL: such a pod stays Pending, as the real scheduler keeps it. */
static const char *missing_claim(kpod *p)
{
    size_t i;
    json_t *vol;
    json_array_foreach(json_object_get(p->spec, "volumes"), i, vol)
    {
        const char *claim = json_string_value(
            json_object_get(json_object_get(vol, "persistentVolumeClaim"), "claimName"));
        if (!claim) continue;
        json_t *pvc = p->k->api->get(p->k->api_ctx, "persistentvolumeclaims", p->ns, claim);
        json_decref(pvc);
        if (!pvc) return claim;
    }
    return NULL;
}

/* byte order, as Go's sort.Strings */
static int cmp_reason(const void *a, const void *b)
{
    return strcmp(a, b);
}

void kl_try_schedule(kpod *p)
{
    ks_kubelet *k = p->k;
    const char *node_name = json_string_value(json_object_get(p->spec, "nodeName"));
    if (node_name && *node_name) {
        for (int i = 0; i < k->n_nodes; i++)
            if (!strcmp(k->nodes[i].name, node_name)) {
                bind_to(p, &k->nodes[i]);
                kl_pod_start(p);
                return;
            }
        return; /* bound to a node no kubelet serves: stays Pending, as in a real cluster */
    }
    const char *sched = json_string_value(json_object_get(p->spec, "schedulerName"));
    if (sched && *sched && strcmp(sched, "default-scheduler")) return; /* another scheduler's pod */
    const char *claim = missing_claim(p);
    if (claim) { /* the VolumeBinding plugin's verdict; tried again every second */
        char msg[700];
        snprintf(msg, sizeof msg,
                 "0/%d nodes are available: persistentvolumeclaim \"%s\" not found. not found",
                 k->n_nodes, claim);
        if (p->state != POD_UNSCHEDULABLE)
            kl_log("INFO", "pod=%s/%s event=unschedulable msg=\"%s\"", p->ns, p->name, msg);
        kl_publish_unschedulable(p, msg);
        kl_arm(p, 1000);
        return;
    }
    /* the Filter plugins' reasons per node, and whether preemption could help there
     * (NodeResourcesFit: a request beyond the node's allocatable is unresolvable) */
    int n_sel = 0, n_cpu = 0, n_mem = 0, n_ext = 0, n_pods = 0, n_unresolvable = 0,
        n_no_victims = 0;
    knode *best = NULL;
    for (int i = 0; i < k->n_nodes; i++) {
        knode *n = &k->nodes[i];
        if (!node_selector_ok(p, n)) {
            n_sel++;
            n_unresolvable++;
            continue;
        }
        int fits = 1, unresolvable = 0;
        if (n->pods_used + 1 > n->pods_alloc) {
            n_pods++;
            fits = 0;
        }
        if (p->cpu_req > 0 && n->cpu_used + p->cpu_req > n->cpu_alloc) {
            n_cpu++;
            fits = 0;
            unresolvable |= p->cpu_req > n->cpu_alloc;
        }
        if (p->mem_req > 0 && n->mem_used + p->mem_req > n->mem_alloc) {
            n_mem++;
            fits = 0;
            unresolvable |= p->mem_req > n->mem_alloc;
        }
        if (p->ext_req > 0 && n->ext_used + p->ext_req > n->ext_alloc) {
            n_ext++;
            fits = 0;
            unresolvable |= p->ext_req > n->ext_alloc;
        }
        if (!fits) {
            if (unresolvable)
                n_unresolvable++;
            else
                n_no_victims++; /* every pod has priority 0: none may be preempted */
        }
        if (fits && (!best || n->mem_alloc - n->mem_used > best->mem_alloc - best->mem_used))
            best = n;
    }
    if (!best) {
        /* kube-scheduler's FitError: "N reason" strings sorted, then the PostFilter plugins'
         * verdicts (DynamicResources, DefaultPreemption) */
        char reasons[5][160], pre[2][96], msg[900];
        int nr = 0, np = 0;
        if (n_cpu) snprintf(reasons[nr++], sizeof reasons[0], "%d Insufficient cpu", n_cpu);
        if (n_mem) snprintf(reasons[nr++], sizeof reasons[0], "%d Insufficient memory", n_mem);
        if (n_ext)
            snprintf(reasons[nr++], sizeof reasons[0], "%d Insufficient %.100s", n_ext,
                     k->opt.node_resource_name);
        if (n_sel)
            snprintf(reasons[nr++], sizeof reasons[0],
                     "%d node(s) didn't match Pod's node affinity/selector", n_sel);
        if (n_pods) snprintf(reasons[nr++], sizeof reasons[0], "%d Too many pods", n_pods);
        if (n_no_victims)
            snprintf(pre[np++], sizeof pre[0], "%d No preemption victims found for incoming pod",
                     n_no_victims);
        if (n_unresolvable)
            snprintf(pre[np++], sizeof pre[0], "%d Preemption is not helpful for scheduling",
                     n_unresolvable);
        qsort(reasons, (size_t)nr, sizeof reasons[0], cmp_reason);
        qsort(pre, (size_t)np, sizeof pre[0], cmp_reason);
        size_t l = (size_t)snprintf(msg, sizeof msg, "0/%d nodes are available:", k->n_nodes);
        for (int i = 0; i < nr && l < sizeof msg; i++)
            l += (size_t)snprintf(msg + l, sizeof msg - l, "%s %s", i ? "," : "", reasons[i]);
        if (l < sizeof msg)
            l += (size_t)snprintf(msg + l, sizeof msg - l,
                                  ". no new claims to deallocate, preemption: 0/%d nodes are "
                                  "available:",
                                  k->n_nodes);
        for (int i = 0; i < np && l < sizeof msg; i++)
            l += (size_t)snprintf(msg + l, sizeof msg - l, "%s %s", i ? "," : "", pre[i]);
        if (l < sizeof msg) snprintf(msg + l, sizeof msg - l, ".");
        if (p->state != POD_UNSCHEDULABLE)
            kl_log("INFO", "pod=%s/%s event=unschedulable msg=\"%s\"", p->ns, p->name, msg);
        kl_publish_unschedulable(p, msg);
        return;
    }
    if (!k->api->bind_pod || k->api->bind_pod(k->api_ctx, p->ns, p->name, best->name) != 0) return;
    bind_to(p, best);
    char smsg[600];
    snprintf(smsg, sizeof smsg, "Successfully assigned %s/%s to %s", p->ns, p->name, best->name);
    kl_sched_event(k, p, "Normal", "Scheduled", smsg);
    kl_pod_start(p);
}

typedef struct pend {
    kpod *p;
} pend;

static int cmp_seq(const void *a, const void *b)
{
    const kpod *x = ((const pend *)a)->p, *y = ((const pend *)b)->p;
    return x->created_seq < y->created_seq ? -1 : x->created_seq > y->created_seq;
}

/* Retries unschedulable pods in arrival order (capacity was freed). */
void kl_schedule_pending(ks_kubelet *k)
{
    size_t n = 0;
    for (size_t b = 0; b < k->hcap; b++)
        for (kpod *q = k->htab[b]; q; q = q->hnext)
            if (q->state == POD_UNSCHEDULABLE && !q->deleting) n++;
    if (!n) return;
    pend *list = calloc(n, sizeof *list);
    if (!list) return;
    size_t i = 0;
    for (size_t b = 0; b < k->hcap; b++)
        for (kpod *q = k->htab[b]; q; q = q->hnext)
            if (q->state == POD_UNSCHEDULABLE && !q->deleting) list[i++].p = q;
    qsort(list, n, sizeof *list, cmp_seq);
    for (i = 0; i < n; i++)
        kl_try_schedule(list[i].p);
    free(list);
}
