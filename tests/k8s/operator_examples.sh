#!/usr/bin/env bash
# k8s/operator_examples.sh — the Kubeflow Spark operator's own example manifests, as a team
# switching to cspark would apply them: tests/k8s/operator_examples/*.yaml are Kubeflow's examples
# (spark-pi, spark-pi-configmap, spark-pi-custom-resource, spark-pi-dynamic-allocation,
# spark-pi-emptydir, spark-pi-kube-scheduler, spark-pi-pod-template, spark-pi-ttl,
# fail-submission, spark-pi-volcano) with only the image and the application file changed (the type Scala and the
# Java mainClass kept: a cspark application's default entry runs). On the real control plane with
# 3 nodes and cspark-operator beside it, each is accepted by deploy/operator/'s CRD as written and
# completes (its driver printing pi), with its pods as the manifest asks (security contexts, the
# pod template's containers, env from references, ports, volumes); the TTL example's application
# is deleted after its time to live; fail-submission's submission is retried three times and the
# application ends FAILED naming the field; spark-pi-volcano, with Volcano's PodGroup CRD installed
# and not its scheduler, gets its PodGroup and pods bound for the volcano scheduler, all deleted
# with the application. The operator runs with no spark-defaults.conf of the
# test frame (the examples name their own service account; the API server drops the fields it
# does not know, as it does for Kubeflow's pods). Examples that need what cspark refuses or lacks
# (Python, Prometheus monitoring) are not among them:
# docs/operator.md lists those fields.
# k8s-clusters: real (kubesim serves no CustomResourceDefinitions)
. "$(dirname "$0")/lib/k8s.sh"
k8s_test_init "$@"
EX="$SRC/tests/k8s/operator_examples"
mkdir -p "$T/opconf"

cat >"$T/inner.sh" <<INNER
OP_PID=
stop_operator() { [ -n "\$OP_PID" ] && kill -TERM "\$OP_PID" 2>/dev/null; wait "\$OP_PID" 2>/dev/null; OP_PID=; }
trap 'stop_operator; kill \${PH_PID:-} 2>/dev/null' EXIT
on_fail() { tail -20 "$T/op.log" >&2; kubectl get sparkapp -o yaml >&2; kubectl get pods -o wide >&2; fail "\$@"; }
state() { kubectl get sparkapp "\$1" -o jsonpath='{.status.applicationState.state}' 2>/dev/null; }
is_state() { [ "\$(state "\$1")" = "\$2" ]; }
driver_of() { kubectl get sparkapp "\$1" -o jsonpath='{.status.driverInfo.podName}'; }
# completed NAME — COMPLETED, its driver printed pi
completed() {
    wait_until 300 "\$1 COMPLETED" is_state "\$1" COMPLETED || on_fail "\$1 did not complete: \$(state "\$1")"
    kubectl logs "\$(driver_of "\$1")" -c spark-kubernetes-driver | grep -q "^Pi is roughly 3.1" ||
        on_fail "\$1: its driver did not print pi"
}

step "installing the CRDs, the examples' service account, the operator"
kubectl apply -f "$SRC/deploy/operator/sparkapplications.yaml" -f "$SRC/deploy/operator/scheduledsparkapplications.yaml" >/dev/null ||
    fail "deploy/operator CRDs refused"
kubectl wait --for condition=established --timeout=60s crd/sparkapplications.sparkoperator.k8s.io >/dev/null ||
    fail "the SparkApplication CRD was not established"
# the account Kubeflow's Helm chart makes for the drivers, with deploy/rbac.yaml's Role
kubectl create serviceaccount spark-operator-spark >/dev/null || fail "cannot create spark-operator-spark"
kubectl create rolebinding spark-operator-spark --role=spark-driver --serviceaccount=default:spark-operator-spark >/dev/null ||
    fail "cannot bind spark-operator-spark"
kubectl create configmap dummy-cm --from-literal=note=mounted >/dev/null || fail "cannot create dummy-cm"
SPARK_CONF_DIR="$T/opconf" "$BUILD/bin/cspark-operator" --master "k8s://\$SERVER" --namespace default \
    --lease-namespace default --lease-duration 4 >"$T/op.log" 2>&1 &
OP_PID=\$!

step "the examples with names of their own, applied at once"
for f in spark-pi spark-pi-custom-resource spark-pi-dynamic-allocation spark-pi-kube-scheduler spark-pi-pod-template spark-pi-ttl fail-submission; do
    kubectl apply -f "$EX/\$f.yaml" >/dev/null 2>"$T/\$f.err" || fail "\$f.yaml refused: \$(cat "$T/\$f.err")"
done
completed spark-pi
completed spark-pi-custom-resource
completed spark-pi-dynamic-allocation
completed spark-pi-kube-scheduler
completed spark-pi-pod-template

step "what the examples asked of the pods"
# the container security context (runAsUser 185, non-root, no privilege escalation)
got=\$(kubectl get pod "\$(driver_of spark-pi)" -o jsonpath='{.spec.containers[0].name} {.spec.containers[0].securityContext.runAsUser} {.spec.containers[0].securityContext.runAsNonRoot} {.spec.containers[0].securityContext.allowPrivilegeEscalation} {.spec.serviceAccountName}')
[ "\$got" = "spark-kubernetes-driver 185 true false spark-operator-spark" ] || on_fail "spark-pi's driver: \$got"
# the hostPath volume at /tmp, coreLimit as the cpu limit
got=\$(kubectl get pod "\$(driver_of spark-pi-custom-resource)" -o jsonpath='{.spec.volumes[?(@.name=="test-volume")].hostPath.path} {.spec.containers[0].volumeMounts[?(@.name=="test-volume")].mountPath} {.spec.containers[0].resources.limits.cpu}')
[ "\$got" = "/tmp /tmp 1200m" ] || on_fail "spark-pi-custom-resource's driver: \$got"
# the pod template: its labels, env from the ConfigMaps and Secrets, its port, its account
pt=\$(driver_of spark-pi-pod-template)
got=\$(kubectl get pod "\$pt" -o jsonpath='{.metadata.labels.spark\.apache\.org/version} {.spec.containers[0].env[?(@.name=="KEY0")].value} {.spec.containers[0].env[?(@.name=="KEY1")].valueFrom.configMapKeyRef.name} {.spec.containers[0].env[?(@.name=="KEY2")].valueFrom.secretKeyRef.name} {.spec.containers[0].envFrom[*].configMapRef.name} {.spec.containers[0].envFrom[*].secretRef.name} {.spec.containers[0].ports[?(@.name=="custom-port")].containerPort} {.spec.serviceAccountName} {.spec.securityContext.runAsUser}')
[ "\$got" = "4.0.0 VALUE0 test-configmap test-secret test-configmap-2 test-secret-2 12345 spark-operator-spark 185" ] ||
    on_fail "spark-pi-pod-template's driver: \$got"
step "spark-pi-ttl is deleted after its time to live, fail-submission ends FAILED"
gone() { [ -z "\$(kubectl get sparkapp spark-pi-ttl -o name --ignore-not-found)" ]; }
wait_until 300 "spark-pi-ttl deleted after timeToLiveSeconds" gone || on_fail "spark-pi-ttl was not deleted: \$(state spark-pi-ttl)"
wait_until 120 "fail-submission FAILED" is_state fail-submission FAILED || on_fail "fail-submission: \$(state fail-submission)"
got=\$(kubectl get sparkapp fail-submission -o jsonpath='{.status.submissionAttempts} {.status.applicationState.errorMessage}')
case "\$got" in "4 spec.mainClass 'non-existent': expected"*) ;; *) on_fail "fail-submission: \$got" ;; esac
[ -z "\$(kubectl get pods -l sparkoperator.k8s.io/app-name=fail-submission -o name)" ] || on_fail "fail-submission created pods"

step "spark-pi-volcano: its PodGroup and its pods for Volcano's scheduler"
# Volcano's PodGroup CRD and not its scheduler (the pods wait for it: the application stays
# SUBMITTED); the PodGroup, owned by the driver pod, goes with the application
kubectl apply -f "$SRC/tests/k8s/crds/volcano-podgroups.yaml" >/dev/null || fail "the PodGroup CRD was refused"
kubectl wait --for condition=established --timeout=60s crd/podgroups.scheduling.volcano.sh >/dev/null ||
    fail "the PodGroup CRD was not established"
kubectl apply -f "$EX/spark-pi-volcano.yaml" >/dev/null 2>"$T/volcano.err" || fail "spark-pi-volcano.yaml refused: \$(cat "$T/volcano.err")"
wait_until 120 "spark-pi-volcano SUBMITTED" is_state spark-pi-volcano SUBMITTED || on_fail "spark-pi-volcano: \$(state spark-pi-volcano)"
drv=\$(driver_of spark-pi-volcano)
pg=\$(kubectl get pod "\$drv" -o jsonpath='{.metadata.labels.spark-app-selector}')-podgroup
got=\$(kubectl get pod "\$drv" -o jsonpath='{.spec.schedulerName} {.metadata.annotations.scheduling\.k8s\.io/group-name}')
[ "\$got" = "volcano \$pg" ] || on_fail "spark-pi-volcano's driver: \$got (expected volcano \$pg)"
got=\$(kubectl get podgroup "\$pg" -o jsonpath='{.spec.minMember} {.metadata.ownerReferences[0].name}')
[ "\$got" = "1 \$drv" ] || on_fail "spark-pi-volcano's PodGroup \$pg: \$got"
kubectl delete sparkapp spark-pi-volcano --wait=true >/dev/null || fail "cannot delete spark-pi-volcano"
wait_until 60 "the PodGroup deleted" sh -c '[ -z "\$(kubectl get podgroups -o name)" ]' ||
    fail "left behind: \$(kubectl get podgroups -o name)"

step "the examples named spark-pi, one after the other"
kubectl delete sparkapp --all --wait=true >/dev/null || fail "kubectl delete sparkapp failed"
for f in spark-pi-configmap spark-pi-emptydir; do
    kubectl apply -f "$EX/\$f.yaml" >/dev/null 2>"$T/\$f.err" || fail "\$f.yaml refused: \$(cat "$T/\$f.err")"
    completed spark-pi
    # the ConfigMap volume at its path; the Memory emptyDir at /datadir, cspark's local dir
    case \$f in
    spark-pi-configmap)
        want="dummy-cm /opt/spark/mycm"
        path='{.spec.volumes[?(@.name=="config-vol")].configMap.name} {.spec.containers[0].volumeMounts[?(@.name=="config-vol")].mountPath}' ;;
    spark-pi-emptydir)
        want="Memory /datadir /datadir"
        path='{.spec.volumes[?(@.name=="spark-local-dir-1")].emptyDir.medium} {.spec.containers[0].volumeMounts[?(@.name=="spark-local-dir-1")].mountPath} {.spec.containers[0].env[?(@.name=="SPARK_LOCAL_DIRS")].value}' ;;
    esac
    got=\$(kubectl get pod "\$(driver_of spark-pi)" -o jsonpath="\$path")
    [ "\$got" = "\$want" ] || on_fail "\$f's driver: \$got (expected \$want)"
    kubectl delete sparkapp spark-pi --wait=true >/dev/null || fail "cannot delete \$f's application"
done
kubectl delete configmap dummy-cm test-configmap test-configmap-2 >/dev/null
kubectl delete secret test-secret test-secret-2 >/dev/null
expect_nothing_left "after the examples"
echo "inner ok"
INNER
k8s_run_inner 900
