/*
 * kubelet_status.c — what the kubesim kubelet reports: its Node objects (capacity, conditions,
 * addresses, node info) and each pod's status exactly as a kubelet computes it (getPhase from the
 * containers, the five pod conditions with transition times, containerStatuses with waiting /
 * running / terminated states, lastState, restartCount, image IDs, podIP, hostIP, qosClass), sent
 * through the API ops (kl_api_ops.set_pod_status, put_node). Called by the other kubelet files on
 * the worker thread.
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

void kl_register_nodes(ks_kubelet *k)
{
    char ts[32];
    kl_now_rfc3339(ts, sizeof ts);
    for (int i = 0; i < k->n_nodes; i++) {
        knode *n = &k->nodes[i];
        char cpu[32], mem[32], pods[16], cidr[32];
        if (n->cpu_alloc % 1000 == 0)
            snprintf(cpu, sizeof cpu, "%lld", n->cpu_alloc / 1000);
        else
            snprintf(cpu, sizeof cpu, "%lldm", n->cpu_alloc);
        snprintf(mem, sizeof mem, "%lldKi", n->mem_alloc / 1024);
        snprintf(pods, sizeof pods, "%d", n->pods_alloc);
        if (n->pod_cidr[0])
            snprintf(cidr, sizeof cidr, "%s", n->pod_cidr);
        else
            snprintf(cidr, sizeof cidr, "127.%d.0.0/16", n->octet);
        struct utsname un;
        char kernel[128] = "", boot[64];
        if (uname(&un) == 0) snprintf(kernel, sizeof kernel, "%s", un.release);
        snprintf(boot, sizeof boot, "%016llx", kl_fnv(n->name) ^ (unsigned long long)getpid());
        json_t *cap = json_pack("{s:s,s:s,s:s,s:s}", "cpu", cpu, "memory", mem, "pods", pods,
                                "ephemeral-storage", "104857600Ki");
        if (k->opt.node_resource_name) { /* a device plugin's resource, as the kubelet reports it */
            char ext[32];
            snprintf(ext, sizeof ext, "%lld", n->ext_alloc);
            json_object_set_new(cap, k->opt.node_resource_name, json_string(ext));
        }
        json_t *node = json_pack(
            "{s:s,s:s,s:{s:s,s:{s:s,s:s,s:s,s:s,s:s}},s:{s:s,s:[s]},"
            "s:{s:O,s:O,s:[{s:s,s:s,s:s,s:s,s:s,s:s},{s:s,s:s,s:s,s:s,s:s,s:s},{s:s,s:s,s:s,s:s,s:"
            "s,s:s},"
            "{s:s,s:s,s:s,s:s,s:s,s:s}],s:[{s:s,s:s},{s:s,s:s}],"
            "s:{s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:s},s:{s:{s:i}}}}",
            "apiVersion", "v1", "kind", "Node", "metadata", "name", n->name, "labels",
            "kubernetes.io/hostname", n->name, "kubernetes.io/os", "linux", "kubernetes.io/arch",
            "amd64", "beta.kubernetes.io/os", "linux", "beta.kubernetes.io/arch", "amd64", "spec",
            "podCIDR", cidr, "podCIDRs", cidr, "status", "capacity", cap, "allocatable", cap,
            "conditions", "type", "MemoryPressure", "status", "False", "reason",
            "KubeletHasSufficientMemory", "message", "kubelet has sufficient memory available",
            "lastHeartbeatTime", ts, "lastTransitionTime", ts, "type", "DiskPressure", "status",
            "False", "reason", "KubeletHasNoDiskPressure", "message",
            "kubelet has no disk pressure", "lastHeartbeatTime", ts, "lastTransitionTime", ts,
            "type", "PIDPressure", "status", "False", "reason", "KubeletHasSufficientPID",
            "message", "kubelet has sufficient PID available", "lastHeartbeatTime", ts,
            "lastTransitionTime", ts, "type", "Ready", "status", "True", "reason", "KubeletReady",
            "message", "kubelet is posting ready status", "lastHeartbeatTime", ts,
            "lastTransitionTime", ts, "addresses", "type", "InternalIP", "address", n->host_ip,
            "type", "Hostname", "address", n->name, "nodeInfo", "kubeletVersion", "v1.31.0",
            "kubeProxyVersion", "v1.31.0", "containerRuntimeVersion",
            k->opt.fake ? "kwok://kubesim" : "kubesim://1.0", "operatingSystem", "linux",
            "architecture", "amd64", "osImage", "kubesim", "kernelVersion", kernel, "machineID",
            n->name, "systemUUID", n->name, "bootID", boot, "daemonEndpoints", "kubeletEndpoint",
            "Port", 10250);
        json_decref(cap);
        if (node) k->api->put_node(k->api_ctx, node);
        json_decref(node);
    }
}

/* ---------------- status ---------------- */

enum { C_READYTOSTART, C_INITIALIZED, C_READY, C_CONTAINERSREADY, C_SCHEDULED };
static const char *cond_names[5] = {"PodReadyToStartContainers", "Initialized", "Ready",
                                    "ContainersReady", "PodScheduled"};

void kl_set_cond(kpod *p, int idx, int status)
{
    if (p->cond_status[idx] != status + 1 || !p->cond_time[idx][0]) {
        p->cond_status[idx] = status + 1;
        kl_now_rfc3339(p->cond_time[idx], sizeof p->cond_time[idx]);
    }
}

const char *kl_restart_policy(const kpod *p)
{
    const char *r = json_string_value(json_object_get(p->spec, "restartPolicy"));
    return r ? r : "Always";
}

/* kubelet's getPhase: from the regular containers' states */
const char *kl_compute_phase(kpod *p, int *terminal)
{
    *terminal = 0;
    const char *rp = kl_restart_policy(p);
    if (p->state == POD_NEW || p->state == POD_UNSCHEDULABLE) return "Pending";
    if (!p->init_done) {
        for (int i = 0; i < p->n_init; i++) {
            kcont *c = &p->cs[i];
            if (c->state == CS_TERMINATED && c->term.exit_code != 0 && !strcmp(rp, "Never")) {
                *terminal = 1;
                return "Failed";
            }
        }
        return "Pending";
    }
    int running = 0, waiting = 0, stopped = 0, succeeded = 0;
    for (int i = p->n_init; i < p->n_init + p->n_cont; i++) {
        kcont *c = &p->cs[i];
        if (c->state == CS_RUNNING)
            running++;
        else if (c->state == CS_TERMINATED) {
            stopped++;
            if (c->term.exit_code == 0) succeeded++;
        } else if (c->last.set)
            stopped++;
        else
            waiting++;
    }
    if (waiting > 0) return "Pending";
    if (running > 0) return "Running";
    if (p->deleting) {
        *terminal = 1;
        return stopped == succeeded ? "Succeeded" : "Failed";
    }
    if (!strcmp(rp, "Always")) return "Running";
    /* every container stopped; with a pending restart the pod keeps running */
    for (int i = p->n_init; i < p->n_init + p->n_cont; i++)
        if (p->cs[i].state != CS_TERMINATED) return "Running";
    *terminal = 1;
    return stopped == succeeded ? "Succeeded" : "Failed";
}

static json_t *term_json(const kterm *t)
{
    json_t *o = json_pack("{s:i,s:s,s:s,s:s}", "exitCode", t->exit_code, "reason", t->reason,
                          "startedAt", t->started_at, "finishedAt", t->finished_at);
    if (t->container_id[0]) json_object_set_new(o, "containerID", json_string(t->container_id));
    if (t->message[0]) json_object_set_new(o, "message", json_string(t->message));
    return o;
}

static json_t *container_status(kpod *p, kcont *c)
{
    json_t *state;
    if (c->state == CS_RUNNING)
        state = json_pack("{s:{s:s}}", "running", "startedAt", c->started_at);
    else if (c->state == CS_TERMINATED)
        state = json_pack("{s:o}", "terminated", term_json(&c->term));
    else {
        json_t *w =
            json_pack("{s:s}", "reason", c->wait_reason[0] ? c->wait_reason : "ContainerCreating");
        if (c->wait_message[0]) json_object_set_new(w, "message", json_string(c->wait_message));
        state = json_pack("{s:o}", "waiting", w);
    }
    json_t *last =
        c->last.set ? json_pack("{s:o}", "terminated", term_json(&c->last)) : json_object();
    char image[512], image_id[600];
    const char *img = c->image;
    if (!strchr(img, '/'))
        snprintf(image, sizeof image, "docker.io/library/%s%s", img,
                 strchr(img, ':') ? "" : ":latest");
    else
        snprintf(image, sizeof image, "%s", img);
    unsigned long long h = kl_fnv(img);
    char base[512];
    snprintf(base, sizeof base, "%s", image);
    char *colon = strrchr(base, ':');
    if (colon && !strchr(colon, '/')) *colon = 0;
    snprintf(image_id, sizeof image_id, "%s@sha256:%016llx%016llx%016llx%016llx", base, h, h * 31,
             h * 131, h * 1031);
    int running = c->state == CS_RUNNING;
    json_t *o = json_pack("{s:s,s:o,s:o,s:b,s:i,s:s,s:s,s:b}", "name", c->name, "state", state,
                          "lastState", last, "ready", running && c->ready && !p->deleting,
                          "restartCount", c->restart_count, "image", image, "imageID",
                          c->ever_started ? image_id : "", "started", running && c->startup_done);
    if (c->container_id[0] && c->state != CS_WAITING)
        json_object_set_new(o, "containerID", json_string(c->container_id));
    return o;
}

void kl_publish(kpod *p)
{
    ks_kubelet *k = p->k;
    int terminal;
    const char *phase = kl_compute_phase(p, &terminal);
    json_t *st = json_object();
    json_object_set_new(st, "phase", json_string(phase));
    json_t *conds = json_array();
    char names[1024];
    size_t nl = 0;
    names[0] = 0;
    int all_ready = 1;
    for (int i = p->n_init; i < p->n_init + p->n_cont; i++)
        if (p->cs[i].state != CS_RUNNING || !p->cs[i].ready || p->deleting) {
            all_ready = 0;
            nl += (size_t)snprintf(names + nl, sizeof names - nl, "%s%s", nl ? " " : "",
                                   p->cs[i].name);
            if (nl >= sizeof names) nl = sizeof names - 1;
        }
    kl_set_cond(p, C_READYTOSTART, !terminal);
    kl_set_cond(p, C_INITIALIZED, p->init_done);
    kl_set_cond(p, C_READY, all_ready && !terminal);
    kl_set_cond(p, C_CONTAINERSREADY, all_ready && !terminal);
    kl_set_cond(p, C_SCHEDULED, 1);
    for (int c = 0; c < 5; c++) {
        int ok = p->cond_status[c] == 2;
        json_t *cj =
            json_pack("{s:s,s:s,s:n,s:s}", "type", cond_names[c], "status", ok ? "True" : "False",
                      "lastProbeTime", "lastTransitionTime", p->cond_time[c]);
        if (!ok && c == C_INITIALIZED) {
            char inc[512];
            size_t il = 0;
            inc[0] = 0;
            for (int i = 0; i < p->n_init; i++)
                if (!(p->cs[i].state == CS_TERMINATED && p->cs[i].term.exit_code == 0)) {
                    il += (size_t)snprintf(inc + il, sizeof inc - il, "%s%s", il ? " " : "",
                                           p->cs[i].name);
                    if (il >= sizeof inc) il = sizeof inc - 1;
                }
            json_object_set_new(cj, "reason", json_string("ContainersNotInitialized"));
            char m[600];
            snprintf(m, sizeof m, "containers with incomplete status: [%s]", inc);
            json_object_set_new(cj, "message", json_string(m));
        } else if (!ok && (c == C_READY || c == C_CONTAINERSREADY)) {
            if (terminal) {
                json_object_set_new(cj, "reason", json_string("PodCompleted"));
            } else {
                char m[1100];
                snprintf(m, sizeof m, "containers with unready status: [%s]", names);
                json_object_set_new(cj, "reason", json_string("ContainersNotReady"));
                json_object_set_new(cj, "message", json_string(m));
            }
        }
        json_array_append_new(conds, cj);
    }
    json_object_set_new(st, "conditions", conds);
    if (p->node) {
        json_object_set_new(st, "hostIP", json_string(p->node->host_ip));
        json_object_set_new(st, "hostIPs", json_pack("[{s:s}]", "ip", p->node->host_ip));
    }
    if (p->ip[0]) {
        json_object_set_new(st, "podIP", json_string(p->ip));
        json_object_set_new(st, "podIPs", json_pack("[{s:s}]", "ip", p->ip));
    }
    if (p->start_time[0]) json_object_set_new(st, "startTime", json_string(p->start_time));
    if (p->n_init) {
        json_t *a = json_array();
        for (int i = 0; i < p->n_init; i++)
            json_array_append_new(a, container_status(p, &p->cs[i]));
        json_object_set_new(st, "initContainerStatuses", a);
    }
    json_t *a = json_array();
    for (int i = p->n_init; i < p->n_init + p->n_cont; i++)
        json_array_append_new(a, container_status(p, &p->cs[i]));
    json_object_set_new(st, "containerStatuses", a);
    json_object_set_new(st, "qosClass", json_string(kl_qos_class(p->spec)));
    k->api->set_pod_status(k->api_ctx, p->ns, p->name, p->uid, st);
}

void kl_publish_unschedulable(kpod *p, const char *msg)
{
    if (p->state == POD_UNSCHEDULABLE && !strcmp(p->unsched_msg, msg)) return;
    char ts[32];
    kl_now_rfc3339(ts, sizeof ts);
    snprintf(p->unsched_msg, sizeof p->unsched_msg, "%s", msg);
    p->state = POD_UNSCHEDULABLE;
    json_t *st =
        json_pack("{s:s,s:[{s:s,s:s,s:n,s:s,s:s,s:s}],s:s}", "phase", "Pending", "conditions",
                  "type", "PodScheduled", "status", "False", "lastProbeTime", "lastTransitionTime",
                  ts, "reason", "Unschedulable", "message", msg, "qosClass", kl_qos_class(p->spec));
    p->k->api->set_pod_status(p->k->api_ctx, p->ns, p->name, p->uid, st);
    kl_sched_event(p->k, p, "Warning", "FailedScheduling", msg);
}
