/*
 * kubelet_run.c — the pod life cycle of the kubesim kubelet: the pod sandbox (network namespace),
 * volumes, init containers in order then the containers (container.c), restarts per restartPolicy
 * with back-off, exits and termination messages, graceful deletion (preStop hook, SIGTERM, the
 * grace period, SIGKILL, then finalization through the API), the fake kubelet's Running without
 * processes, and the per-pod timer that drives all of it. Called by kubelet.c (events) and
 * kubelet_sched.c (a bound pod starts) on the worker thread.
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

/* ---------------- timers ---------------- */

void kl_arm(kpod *p, int64_t delay_ms)
{
    if (p->closing) return;
    if (!p->timer_init) {
        uv_timer_init(&p->k->loop, &p->timer);
        p->timer.data = p;
        p->timer_init = 1;
        p->open_handles++;
    }
    if (delay_ms < 0) delay_ms = 0;
    /* keep the earliest deadline */
    if (uv_is_active((uv_handle_t *)&p->timer)) {
        uint64_t due = uv_timer_get_due_in(&p->timer);
        if (due <= (uint64_t)delay_ms) return;
    }
    uv_timer_start(&p->timer, kl_pod_timer_cb, (uint64_t)delay_ms, 0);
}

/* ---------------- pod lifecycle ---------------- */

void kl_pod_drop(kpod *p)
{
    ks_kubelet *k = p->k;
    for (int i = 0; i < p->n_init + p->n_cont; i++) {
        kcont *c = &p->cs[i];
        kl_cont_stop_poll(c);
        kl_probes_stop(c);
        if (c->hook) {
            ks_container_free(c->hook);
            c->hook = NULL;
        }
        if (c->proc) {
            ks_container_free(c->proc); /* SIGKILLs and reaps */
            c->proc = NULL;
        }
    }
    kl_pod_release(p);
    if (p->ip[0] && !k->opt.fake) k->hosts_dirty = 1;
    kl_pod_unlink(k, p);
    if (p->netns) kl_net_pod_down(p);
    if (p->dir) kl_remove_tree(p->dir);
    p->closing = 1;
    if (p->timer_init) {
        uv_timer_stop(&p->timer);
        uv_close((uv_handle_t *)&p->timer, kl_pod_handle_closed);
    }
    kl_pod_unref(p);
}

void kl_pod_finalize(kpod *p)
{
    ks_kubelet *k = p->k;
    char ns[256], name[256], uid[128];
    snprintf(ns, sizeof ns, "%s", p->ns);
    snprintf(name, sizeof name, "%s", p->name);
    snprintf(uid, sizeof uid, "%s", p->uid);
    kl_pod_drop(p);
    k->api->finalize_pod(k->api_ctx, ns, name, uid);
    kl_schedule_pending(k);
}

int kl_running_containers(kpod *p)
{
    int n = 0;
    for (int i = 0; i < p->n_init + p->n_cont; i++)
        if (p->cs[i].proc) n++;
    return n;
}

void kl_pod_begin_delete(kpod *p)
{
    ks_kubelet *k = p->k;
    json_t *g = json_object_get(json_object_get(p->obj, "metadata"), "deletionGracePeriodSeconds");
    long long grace = json_is_integer(g) ? json_integer_value(g) : 30;
    int64_t deadline = kl_mono_ms() + grace * 1000;
    if (p->deleting) {
        if (p->kill_deadline && deadline < p->kill_deadline) {
            p->kill_deadline = deadline;
            kl_arm(p, grace * 1000);
        }
        return;
    }
    p->deleting = 1;
    if (k->opt.fake || (p->state != POD_STARTING && p->state != POD_ACTIVE) ||
        kl_running_containers(p) == 0) {
        if (!k->opt.fake && (p->state == POD_STARTING || p->state == POD_ACTIVE)) {
            /* nothing runs any more: report the final state before the object goes */
            for (int i = 0; i < p->n_init + p->n_cont; i++)
                p->cs[i].next_start_ms = 0;
            kl_publish(p);
        }
        kl_pod_finalize(p);
        return;
    }
    p->kill_deadline = deadline;
    for (int i = 0; i < p->n_init + p->n_cont; i++) {
        kcont *c = &p->cs[i];
        if (c->proc) {
            kl_event(k, p, "Normal", "Killing", "Stopping container %s", c->name);
            kl_run_pre_stop(c);
        }
    }
    k->hosts_dirty = 1;
    kl_arm(p, grace * 1000);
    kl_publish(p);
}

/* SIGTERM to a container whose preStop hook (if any) is done. */
void kl_send_term(kcont *c)
{
    if (c->term_sent || !c->proc) return;
    c->term_sent = 1;
    ks_container_signal(c->proc, SIGTERM);
}

/* Deletion of a running container: the preStop hook first (exec or sleep; httpGet is not supported
 * and counts as done), then SIGTERM. The pod's grace deadline bounds both. */
void kl_run_pre_stop(kcont *c)
{
    kpod *p = c->pod;
    ks_kubelet *k = p->k;
    const json_t *ct = json_array_get(
        json_object_get(p->spec, c->init ? "initContainers" : "containers"), (size_t)c->index);
    const json_t *pre = json_object_get(json_object_get(ct, "lifecycle"), "preStop");
    const json_t *cmd = json_object_get(json_object_get(pre, "exec"), "command");
    const json_t *sl = json_object_get(json_object_get(pre, "sleep"), "seconds");
    if (json_array_size(cmd) > 0) {
        kl_spec spec;
        char reason[64], msg[1024], err[1024] = "";
        char **argv = calloc(json_array_size(cmd) + 1, sizeof(char *));
        size_t i;
        json_t *a;
        json_array_foreach(cmd, i, a) argv[i] =
            (char *)(json_string_value(a) ? json_string_value(a) : "");
        int rc = -1;
        if (argv && kl_build_spec(c, &spec, reason, sizeof reason, msg, sizeof msg) == 0) {
            rc = ks_container_exec(c->proc, argv, spec.envp, spec.workdir, &c->hook, err,
                                   sizeof err);
            kl_spec_free(&spec);
        } else {
            snprintf(err, sizeof err, "%s", msg);
        }
        free(argv);
        if (rc == 0) {
            kl_log("INFO", "pod=%s/%s container=%s event=prestop-hook", p->ns, p->name, c->name);
            return; /* SIGTERM when the hook ends (mem_timer_cb) */
        }
        kl_event(k, p, "Warning", "FailedPreStopHook", "PreStopHook failed: %s", err);
    } else if (json_is_integer(sl) && json_integer_value(sl) > 0) {
        c->term_at = kl_mono_ms() + json_integer_value(sl) * 1000;
        kl_arm(p, json_integer_value(sl) * 1000);
        return;
    }
    kl_send_term(c);
}

void kl_pod_maybe_finish_delete(kpod *p)
{
    if (!p->deleting || kl_running_containers(p) > 0) return;
    /* containers that never ran (or wait for a restart) are reported as they are */
    kl_publish(p);
    kl_pod_finalize(p);
}

static void poll_cb(uv_poll_t *h, int status, int events)
{
    (void)status, (void)events;
    kcont *c = h->data;
    kl_on_container_exit(c);
}

static int64_t backoff_ms(int restarts)
{
    if (restarts <= 0) return 0;
    int64_t d = 10000;
    for (int i = 1; i < restarts && d < 300000; i++)
        d *= 2;
    return d > 300000 ? 300000 : d;
}

void kl_start_container(kcont *c)
{
    kpod *p = c->pod;
    ks_kubelet *k = p->k;
    kl_spec spec;
    char reason[64] = "", msg[1024] = "";
    if (kl_build_spec(c, &spec, reason, sizeof reason, msg, sizeof msg) != 0) {
        int again = !strcmp(c->wait_reason, reason);
        if (!strcmp(reason, "ErrImagePull") && again)
            snprintf(reason, sizeof reason, "ImagePullBackOff");
        if (strcmp(c->wait_reason, reason) || strcmp(c->wait_message, msg)) {
            kl_event(k, p, "Warning",
                     !strncmp(reason, "ErrImage", 8) || !strcmp(reason, "ImagePullBackOff")
                         ? "Failed"
                         : "Failed",
                     "Error: %s", msg);
        }
        snprintf(c->wait_reason, sizeof c->wait_reason, "%s", reason);
        snprintf(c->wait_message, sizeof c->wait_message, "%s", msg);
        c->state = CS_WAITING;
        c->next_start_ms = kl_mono_ms() + 2000;
        return;
    }
    char id[200], log_path[4200], prev[4300], scratch[4200], netns[4200];
    snprintf(scratch, sizeof scratch, "%s/.root-%s", p->dir, c->name);
    snprintf(netns, sizeof netns, "%s/netns", p->dir);
    snprintf(id, sizeof id, "%s-%s-%d", p->uid, c->name,
             c->restart_count + (c->ever_started ? 1 : 0));
    snprintf(log_path, sizeof log_path, "%s/%s.log", p->dir, c->name);
    snprintf(prev, sizeof prev, "%s/%s.exited", p->dir, c->name);
    unlink(prev);
    if (c->ever_started || c->term.set) {
        snprintf(prev, sizeof prev, "%s.previous", log_path);
        rename(log_path, prev);
        c->restart_count++;
        c->last = c->term;
        c->last.set = 1;
    }
    ks_container_spec cs = {.id = id,
                            .argv = spec.argv,
                            .envp = spec.envp,
                            .mounts = spec.mounts,
                            .n_mounts = spec.n_mounts,
                            .workdir = spec.workdir,
                            .hostname =
                                json_string_value(json_object_get(p->spec, "hostname"))
                                    ? json_string_value(json_object_get(p->spec, "hostname"))
                                    : p->name,
                            .log_path = log_path,
                            .memory_limit = spec.memory_limit,
                            .cpu_request = spec.cpu_request,
                            .cpu_limit = spec.cpu_limit,
                            .run_as_user = spec.run_as_user,
                            .run_as_group = spec.run_as_group,
                            .supplemental_groups = spec.groups,
                            .n_supplemental_groups = spec.n_groups,
                            .scratch_dir = scratch,
                            .netns_path = p->netns ? netns : NULL,
                            .layers = (const char *const *)spec.layers,
                            .n_layers = spec.n_layers};
    char err[1024];
    if (!c->ever_started && !c->term.set)
        kl_event(k, p, "Normal", "Pulled", "Container image \"%s\" already present on machine",
                 c->image);
    char hex[65];
    kl_random_hex(hex, 64);
    snprintf(c->container_id, sizeof c->container_id, "containerd://%s", hex);
    int rc = ks_container_start(&cs, &c->proc, err, sizeof err);
    kl_spec_free(&spec);
    c->wait_reason[0] = c->wait_message[0] = 0;
    if (rc != 0) {
        memset(&c->term, 0, sizeof c->term);
        c->term.set = 1;
        c->term.exit_code = 128;
        snprintf(c->term.reason, sizeof c->term.reason, "StartError");
        snprintf(c->term.message, sizeof c->term.message,
                 "failed to create containerd task: failed to create shim task: "
                 "OCI runtime create failed: runc create failed: unable to start container "
                 "process: %s: unknown",
                 err);
        snprintf(c->term.started_at, sizeof c->term.started_at, "1970-01-01T00:00:00Z");
        kl_now_rfc3339(c->term.finished_at, sizeof c->term.finished_at);
        snprintf(c->term.container_id, sizeof c->term.container_id, "%s", c->container_id);
        c->state = CS_TERMINATED;
        kl_event(k, p, "Warning", "Failed", "Error: %s", c->term.message);
        kl_log("INFO", "pod=%s/%s container=%s event=start-failed msg=\"%s\"", p->ns, p->name,
               c->name, err);
        c->proc = NULL;
        /* decide like an exit */
        c->ever_started = 1;
        return;
    }
    c->ever_started = 1;
    c->state = CS_RUNNING;
    kl_probes_init(c);
    kl_now_rfc3339(c->started_at, sizeof c->started_at);
    kl_event(k, p, "Normal", "Created", "Created container %s", c->name);
    kl_event(k, p, "Normal", "Started", "Started container %s", c->name);
    kl_log("INFO", "pod=%s/%s container=%s pid=%d ip=%s event=started", p->ns, p->name, c->name,
           (int)ks_container_pid(c->proc), p->ip);
    int fd = ks_container_pidfd(c->proc);
    uv_poll_t *h = fd >= 0 ? malloc(sizeof *h) : NULL;
    if (h && uv_poll_init(&k->loop, h, fd) == 0) {
        h->data = c;
        uv_poll_start(h, UV_READABLE, poll_cb);
        c->poll = h;
        c->poll_active = 1;
        p->open_handles++;
    } else {
        free(h); /* reaped by the 50 ms timer instead */
    }
    if (!c->init) k->hosts_dirty = 1;
}

/* after a container terminated (or failed to start): restart or stay terminated */
void kl_after_termination(kcont *c)
{
    kpod *p = c->pod;
    const char *rp = kl_restart_policy(p);
    int restart;
    if (p->deleting)
        restart = 0;
    else if (c->init)
        restart = c->term.exit_code != 0 && strcmp(rp, "Never");
    else
        restart = !strcmp(rp, "Always") || (!strcmp(rp, "OnFailure") && c->term.exit_code != 0);
    if (!restart) return;
    int64_t d = backoff_ms(c->restart_count);
    c->next_start_ms = kl_mono_ms() + d;
    if (d > 0) {
        c->state = CS_WAITING;
        snprintf(c->wait_reason, sizeof c->wait_reason, "CrashLoopBackOff");
        snprintf(c->wait_message, sizeof c->wait_message,
                 "back-off %llds restarting failed container=%s pod=%s_%s(%s)",
                 (long long)(d / 1000), c->name, p->name, p->ns, p->uid);
        c->last = c->term;
        c->last.set = 1;
        kl_event(p->k, p, "Warning", "BackOff",
                 "Back-off restarting failed container %s in pod %s_%s(%s)", c->name, p->name,
                 p->ns, p->uid);
    } else {
        c->state = CS_WAITING;
        c->wait_reason[0] = 0;
    }
}

/* terminationMessagePolicy FallbackToLogsOnError: the end of the log (at most 80 lines and 2048
 * bytes, as the kubelet; here also bounded by the status field) becomes state.terminated.message.
 */
static void fallback_message(kcont *c)
{
    kpod *p = c->pod;
    const json_t *ct = json_array_get(
        json_object_get(p->spec, c->init ? "initContainers" : "containers"), (size_t)c->index);
    const char *pol = json_string_value(json_object_get(ct, "terminationMessagePolicy"));
    if (!pol || strcmp(pol, "FallbackToLogsOnError") || !p->dir) return;
    char path[4200];
    snprintf(path, sizeof path, "%s/%s.log", p->dir, c->name);
    FILE *f = fopen(path, "re");
    if (!f) return;
    size_t cap = sizeof c->term.message - 1;
    if (cap > 2048) cap = 2048;
    char buf[2049];
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    long off = size > (long)cap ? size - (long)cap : 0;
    fseek(f, off, SEEK_SET);
    size_t n = fread(buf, 1, cap, f);
    fclose(f);
    buf[n] = 0;
    char *start = buf;
    int lines = 0;
    for (char *q = buf + n; q > buf; q--)
        if (q[-1] == '\n' && q != buf + n && ++lines >= 80) {
            start = q;
            break;
        }
    size_t l = strlen(start);
    if (l >= sizeof c->term.message) {
        start += l - (sizeof c->term.message - 1); /* keep the end */
        l = sizeof c->term.message - 1;
    }
    memcpy(c->term.message, start, l);
    c->term.message[l] = 0;
}

void kl_on_container_exit(kcont *c)
{
    kpod *p = c->pod;
    if (!c->proc) return;
    int code;
    const char *reason;
    if (ks_container_reap(c->proc, &code, &reason) != 0) return; /* spurious */
    kl_cont_stop_poll(c);
    kl_probes_stop(c);
    ks_container_free(c->proc);
    c->proc = NULL;
    memset(&c->term, 0, sizeof c->term);
    c->term.set = 1;
    c->term.exit_code = code;
    snprintf(c->term.reason, sizeof c->term.reason, "%s", reason);
    snprintf(c->term.started_at, sizeof c->term.started_at, "%s", c->started_at);
    kl_now_rfc3339(c->term.finished_at, sizeof c->term.finished_at);
    snprintf(c->term.container_id, sizeof c->term.container_id, "%s", c->container_id);
    if (code != 0) fallback_message(c);
    c->state = CS_TERMINATED;
    kl_log("INFO", "pod=%s/%s container=%s exitCode=%d reason=%s event=terminated", p->ns, p->name,
           c->name, code, reason);
    char marker[4200];
    snprintf(marker, sizeof marker, "%s/%s.exited", p->dir, c->name);
    kl_write_file(marker, "", 0, 0644); /* ends `kubectl logs -f` (node_agent.c) */
    if (!c->init) p->k->hosts_dirty = 1;
    if (p->deleting) {
        kl_pod_maybe_finish_delete(p);
        return;
    }
    kl_after_termination(c);
    kl_pod_sync(p);
}

/* Drives a bound pod forward: volumes, init containers in order, then the containers; publishes
 * status. */
void kl_pod_sync(kpod *p)
{
    ks_kubelet *k = p->k;
    if (p->deleting || p->state == POD_DONE || p->closing) return;
    int64_t now = kl_mono_ms();
    if (!p->netns && p->node->pod_cidr[0] &&
        !json_is_true(json_object_get(p->spec, "hostNetwork"))) {
        /* the pod sandbox: its network namespace on the node's bridge */
        char err[512];
        if (!p->ip[0]) kl_alloc_ip(p);
        if (!p->ip[0] || kl_net_pod_up(p, err, sizeof err) != 0) {
            if (!p->ip[0]) snprintf(err, sizeof err, "no free address in %s", p->node->pod_cidr);
            if (strcmp(p->unsched_msg, err)) {
                snprintf(p->unsched_msg, sizeof p->unsched_msg, "%s", err);
                kl_event(k, p, "Warning", "FailedCreatePodSandBox",
                         "Failed to create pod sandbox: plugin type=\"bridge\" failed (add): %s",
                         err);
                kl_log("WARN", "pod=%s/%s event=sandbox-failed msg=\"%s\"", p->ns, p->name, err);
            }
            kl_arm(p, 2000);
            return;
        }
        p->netns = 1;
        p->unsched_msg[0] = 0;
    }
    if (!p->volumes_ready) {
        char err[1024];
        if (kl_prepare_volumes(p, err, sizeof err) != 0) {
            if (strcmp(p->unsched_msg, err)) {
                snprintf(p->unsched_msg, sizeof p->unsched_msg, "%s", err);
                kl_event(k, p, "Warning", "FailedMount", "%s", err);
            }
            kl_arm(p, 1000);
            return;
        }
        p->unsched_msg[0] = 0;
        p->volumes_ready = 1;
    }
    int64_t next = -1;
    if (!p->init_done) {
        for (int i = 0; i < p->n_init; i++) {
            kcont *c = &p->cs[i];
            if (c->state == CS_TERMINATED && c->term.exit_code == 0) continue;
            if (c->state == CS_RUNNING) goto publish;
            if (c->state == CS_TERMINATED) {
                kl_after_termination(c);
                if (c->state == CS_TERMINATED) goto publish; /* failed for good */
            }
            if (c->next_start_ms <= now) {
                kl_start_container(c);
                if (c->state == CS_TERMINATED) { /* could not start */
                    kl_after_termination(c);
                    kl_pod_sync(p);
                    return;
                }
            }
            if (c->state == CS_WAITING) next = c->next_start_ms - now;
            goto publish;
        }
        p->init_done = 1;
    }
    p->state = POD_ACTIVE;
    for (int i = p->n_init; i < p->n_init + p->n_cont; i++) {
        kcont *c = &p->cs[i];
        if (c->state != CS_WAITING) continue;
        if (c->next_start_ms <= now) {
            kl_start_container(c);
            if (c->state == CS_TERMINATED) {
                kl_after_termination(c);
                if (c->state == CS_WAITING)
                    i--; /* immediate retry only when no back-off: after_termination set
                            next_start_ms */
                continue;
            }
        }
        if (c->state == CS_WAITING) {
            int64_t d = c->next_start_ms - now;
            if (next < 0 || d < next) next = d;
        }
    }
publish:
    if (next >= 0) kl_arm(p, next < 10 ? 10 : next);
    kl_publish(p);
    int terminal;
    kl_compute_phase(p, &terminal);
    if (terminal) {
        kl_pod_release(p);
        p->state = POD_DONE;
        kl_log("INFO", "pod=%s/%s event=terminal", p->ns, p->name);
        kl_schedule_pending(k);
    }
}

void kl_fake_running(kpod *p)
{
    p->state = POD_ACTIVE;
    p->init_done = 1;
    for (int i = 0; i < p->n_init; i++) {
        kcont *c = &p->cs[i];
        c->state = CS_TERMINATED;
        c->ever_started = 1;
        c->term.set = 1;
        snprintf(c->term.reason, sizeof c->term.reason, "Completed");
        kl_now_rfc3339(c->term.started_at, sizeof c->term.started_at);
        snprintf(c->term.finished_at, sizeof c->term.finished_at, "%s", c->term.started_at);
    }
    for (int i = p->n_init; i < p->n_init + p->n_cont; i++) {
        kcont *c = &p->cs[i];
        char hex[65];
        kl_random_hex(hex, 64);
        snprintf(c->container_id, sizeof c->container_id, "containerd://%s", hex);
        c->state = CS_RUNNING;
        c->ever_started = 1;
        c->ready = c->startup_done = 1;
        kl_now_rfc3339(c->started_at, sizeof c->started_at);
    }
    kl_publish(p);
}

void kl_pod_timer_cb(uv_timer_t *t)
{
    kpod *p = t->data;
    ks_kubelet *k = p->k;
    if (p->closing) return;
    if (p->state == POD_UNSCHEDULABLE && !p->deleting) { /* waiting for a claim */
        kl_try_schedule(p);
        return;
    }
    if (p->deleting) {
        int64_t now = kl_mono_ms();
        for (int i = 0; i < p->n_init + p->n_cont; i++) {
            kcont *c = &p->cs[i];
            if (c->term_at && !c->term_sent) {
                if (now >= c->term_at - 5)
                    kl_send_term(c);
                else
                    kl_arm(p, c->term_at - now);
            }
        }
        if (p->kill_deadline && !p->killed_hard && now < p->kill_deadline - 5) {
            kl_arm(p, p->kill_deadline -
                          now); /* an earlier timer (a back-off, a preStop sleep) fired first */
            return;
        }
        if (p->kill_deadline && !p->killed_hard) {
            p->killed_hard = 1;
            for (int i = 0; i < p->n_init + p->n_cont; i++) {
                if (p->cs[i].hook) ks_container_signal(p->cs[i].hook, SIGKILL);
                if (p->cs[i].proc) ks_container_signal(p->cs[i].proc, SIGKILL);
            }
            kl_log("INFO", "pod=%s/%s event=grace-expired action=SIGKILL", p->ns, p->name);
        }
        return;
    }
    if (k->opt.fake) {
        if (p->state == POD_STARTING) kl_fake_running(p);
        return;
    }
    kl_pod_sync(p);
}

void kl_rewrite_one_hosts(ks_kubelet *k, kpod *p)
{
    json_t *svcs = k->api->list(k->api_ctx, "services", NULL);
    kl_write_hosts(k, p, svcs);
    json_decref(svcs);
}

void kl_pod_start(kpod *p)
{
    ks_kubelet *k = p->k;
    kl_now_rfc3339(p->start_time, sizeof p->start_time);
    kl_alloc_ip(p);
    p->state = POD_STARTING;
    if (k->opt.fake) {
        if (k->opt.fake_delay_ms <= 0) {
            kl_fake_running(p);
        } else {
            kl_publish(p);
            kl_arm(p, k->opt.fake_delay_ms);
        }
        return;
    }
    if (asprintf(&p->dir, "%s/%s_%s", k->pods_dir, p->ns, p->name) < 0) {
        p->dir = NULL;
        return;
    }
    kl_remove_tree(p->dir);
    kl_mkdirs(p->dir, 0755);
    kl_write_resolv(p);
    if (!k->api->sa_token) /* kubesim; a real API server's admission mounts a projected token */
        kl_prepare_service_account(p);
    kl_rewrite_one_hosts(k, p);
    kl_log("INFO", "pod=%s/%s node=%s ip=%s event=starting", p->ns, p->name, p->node->name, p->ip);
    kl_publish(p);
    kl_pod_sync(p);
}
