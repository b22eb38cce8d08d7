/*
 * k8s_pod_states.c — a pod's state from one snapshot of it (see k8s_pod_states.h), in the order
 * of Spark's ExecutorPodsSnapshot.toState: deleted first, then the phase, a Running pod refined
 * by its containers' terminations.
 */
#include "cluster/k8s/k8s_pod_states.h"

#include <string.h>

static bool phase_is(const char *phase, const char *want)
{
    return phase && strcmp(phase, want) == 0;
}

/* The exit code that decides a Running pod: the Spark container's once it terminated, else
 * (check_all_containers) the first non-zero one of another container; *terminated when either. */
static int deciding_exit_code(const json_t *statuses, const char *container,
                              bool check_all_containers, bool *terminated)
{
    int code = -1;
    *terminated = false;
    for (size_t i = 0; i < json_array_size(statuses); i++) {
        const json_t *c = json_array_get(statuses, i);
        const json_t *t = json_object_get(json_object_get(c, "state"), "terminated");
        if (!t) continue;
        const char *name = json_string_value(json_object_get(c, "name"));
        int ec = (int)json_integer_value(json_object_get(t, "exitCode"));
        bool spark = name && strcmp(name, container) == 0;
        if (spark || (check_all_containers && ec != 0)) {
            *terminated = true;
            if (spark || code <= 0) code = ec;
        }
    }
    return code;
}

k8s_pod_status cs_k8s_pod_status_of(const json_t *pod, bool deleted_event, const char *container,
                                    bool check_all_containers)
{
    k8s_pod_status s = {.state = K8S_POD_UNKNOWN, .exit_code = -1};
    const json_t *st = json_object_get(pod, "status");
    const char *phase = json_string_value(json_object_get(st, "phase"));
    s.being_deleted = json_object_get(json_object_get(pod, "metadata"), "deletionTimestamp");
    bool terminated = false;
    if (container)
        s.exit_code = deciding_exit_code(json_object_get(st, "containerStatuses"), container,
                                         check_all_containers, &terminated);
    bool ended_phase = phase_is(phase, "Succeeded") || phase_is(phase, "Failed");
    s.containers_done = deleted_event || ended_phase;
    if (deleted_event ||
        (s.being_deleted && !phase_is(phase, "Running") && !phase_is(phase, "Terminating")))
        s.state = K8S_POD_DELETED;
    else if (phase_is(phase, "Failed"))
        s.state = K8S_POD_FAILED;
    else if (phase_is(phase, "Succeeded"))
        s.state = !container || s.exit_code == 0 ? K8S_POD_SUCCEEDED : K8S_POD_FAILED;
    else if (phase_is(phase, "Running") && terminated && (s.exit_code != 0 || check_all_containers))
        s.state = K8S_POD_FAILED;
    else if (phase_is(phase, "Running"))
        s.state = s.being_deleted ? K8S_POD_TERMINATING : K8S_POD_RUNNING;
    else if (phase_is(phase, "Terminating"))
        s.state = K8S_POD_TERMINATING;
    else if (phase_is(phase, "Pending"))
        s.state = K8S_POD_PENDING;
    return s;
}

bool cs_k8s_pod_state_final(k8s_pod_state s)
{
    return s == K8S_POD_SUCCEEDED || s == K8S_POD_FAILED || s == K8S_POD_DELETED;
}

const char *cs_k8s_pod_state_name(k8s_pod_state s)
{
    static const char *const names[] = {
        [K8S_POD_UNSEEN] = "Unseen",
        [K8S_POD_PENDING] = "PodPending",
        [K8S_POD_RUNNING] = "PodRunning",
        [K8S_POD_SUCCEEDED] = "PodSucceeded",
        [K8S_POD_FAILED] = "PodFailed",
        [K8S_POD_DELETED] = "PodDeleted",
        [K8S_POD_TERMINATING] = "PodTerminating",
        [K8S_POD_UNKNOWN] = "PodUnknown",
    };
    return (unsigned)s < sizeof names / sizeof *names ? names[s] : "PodUnknown";
}
