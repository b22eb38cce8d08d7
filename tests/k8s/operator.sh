#!/usr/bin/env bash
# k8s/operator.sh — cspark-operator on the real control plane (3 nodes): the CRDs of
# deploy/operator/ installed with kubectl, the operator running beside the cluster with the admin
# kubeconfig. A word count SparkApplication applied with kubectl reaches COMPLETED with the output
# of local[2], with its driver, web UI service and attempts in the status, Events on the object and
# `kubectl get sparkapp` printing the Kubeflow operator's columns; a failing one (tests/jobs/testjobs.so's
# always_fail) with restartPolicy OnFailure and onFailureRetries 2 runs three times, each earlier
# driver deleted before the next run, and ends FAILED with the driver's abort reason; spec.volumes,
# volumeMounts, a configMap, a secret, a toleration, a node affinity, a nodeSelector, a valueFrom
# env, host aliases, a DNS config, security contexts and a priority class reach the driver and
# executor pods (which land on the one tainted node they select), the driver's init container runs to its end before the driver starts and its sidecar
# runs beside it (the application COMPLETED while the sidecar still runs); an edited spec reruns a
# completed application and a running one (INVALIDATING, PENDING_RERUN, SUBMITTED) with a new
# driver, the old one deleted, and the attempt counts reset as Kubeflow resets them; a
# spec the schema refuses never gets in, one cspark cannot run (a bad mainClass, javaOptions, a
# sidecar without an image) is FAILED with a message naming the field; the operator SIGKILLed during a submission and restarted runs the application exactly
# once; a ScheduledSparkApplication every minute runs at least twice, keeping one completed run;
# `kubectl delete sparkapp` leaves nothing; and the operator runs as deploy/operator/operator.yaml's
# Deployment (its ServiceAccount, ClusterRole and Lease) in a pod of the image.
# k8s-clusters: real (kubesim serves no CustomResourceDefinitions)
. "$(dirname "$0")/lib/k8s.sh"
k8s_test_init "$@"
"$BUILD/bin/gen_text" -s 41 200000 >"$T/text.txt"
"$BUILD/bin/cspark-submit" --master 'local[2]' "$BUILD/examples/wordcount.so" "$T/text.txt" "$T/ref" >/dev/null 2>"$T/ref.err"
cat "$T"/ref/part-* | sort >"$T/ref.txt"

cat >"$T/inner.sh" <<INNER
OP="$BUILD/bin/cspark-operator"
OP_PID=
start_operator() { # start_operator LOG
    "\$OP" --master "k8s://\$SERVER" --namespace default --lease-namespace default --lease-duration 4 >"\$1" 2>&1 &
    OP_PID=\$!
}
stop_operator() { [ -n "\$OP_PID" ] && kill "\$1" "\$OP_PID" 2>/dev/null; wait "\$OP_PID" 2>/dev/null; OP_PID=; }
trap 'stop_operator -TERM; kill \${PH_PID:-} 2>/dev/null' EXIT
on_fail() { tail -20 "$T"/op*.log >&2; kubectl get sparkapp -o yaml >&2; fail "\$@"; }
state() { kubectl get sparkapp "\$1" -o jsonpath='{.status.applicationState.state}' 2>/dev/null; }
is_state() { [ "\$(state "\$1")" = "\$2" ]; }
# app NAME FILE ARGS... — a SparkApplication manifest as the Kubeflow operator's examples write them
app() {
    local name=\$1 file=\$2
    shift 2
    cat <<YAML
apiVersion: sparkoperator.k8s.io/v1beta2
kind: SparkApplication
metadata:
  name: \$name
  namespace: default
spec:
  type: Java
  mode: cluster
  image: cspark:dev
  imagePullPolicy: IfNotPresent
  mainApplicationFile: \$file
  mainClass: \${MAIN:-cspark_main}
  arguments: [\$(printf '"%s",' "\$@" | sed 's/,\$//')]
  sparkVersion: 4.0.1
  sparkConf:
    spark.kubernetes.allocation.batch.delay: 200ms
    spark.task.maxFailures: "2"
  restartPolicy:
    type: \${RESTART:-Never}
    onFailureRetries: 2
    onFailureRetryInterval: 1
  driver:
    cores: 1
    memory: 512m
    labels:
      version: 4.0.1
    serviceAccount: spark
\${DRIVER_EXTRA:-}
  executor:
    cores: 1
    instances: 2
    memory: 512m
    labels:
      version: 4.0.1
\${EXECUTOR_EXTRA:-}
\${SPEC_EXTRA:-}
YAML
}

step "installing the CRDs"
kubectl apply -f "$SRC/deploy/operator/sparkapplications.yaml" -f "$SRC/deploy/operator/scheduledsparkapplications.yaml" >/dev/null ||
    fail "deploy/operator CRDs refused"
kubectl wait --for condition=established --timeout=60s crd/sparkapplications.sparkoperator.k8s.io >/dev/null ||
    fail "the SparkApplication CRD was not established"
start_operator "$T/op1.log"

step "word count to COMPLETED"
# as a Kubeflow example with its image, type and file changed: the Java class is the default entry
MAIN=org.apache.spark.examples.JavaWordCount app wc "$BUILD/examples/wordcount.so" "$T/text.txt" "$T/wc-out" | kubectl apply -f - >/dev/null || fail "wc refused"
wait_until 240 "wc COMPLETED" is_state wc COMPLETED || on_fail "wc did not complete: \$(state wc)"
cat "$T"/wc-out/part-* | sort | cmp -s - "$T/ref.txt" || on_fail "word count output differs from local[2]"
st=\$(kubectl get sparkapp wc -o jsonpath='{.status.submissionAttempts} {.status.executionAttempts} {.status.driverInfo.podName} {.status.driverInfo.webUIPort} {.status.sparkApplicationId}')
set -- \$st
[ "\$1 \$2 \$4" = "1 1 4040" ] || on_fail "wc status: \$st"
case "\$3" in wc-*-driver) ;; *) on_fail "wc driver pod name: \$3" ;; esac
case "\$5" in spark-*) ;; *) on_fail "wc sparkApplicationId: \$5" ;; esac
[ -n "\$(kubectl get sparkapp wc -o jsonpath='{.status.terminationTime}')" ] || on_fail "wc has no terminationTime"
kubectl get sparkapp wc -o jsonpath='{.status.executorState}' | grep -q -- '-exec-[0-9]*":"' ||
    on_fail "wc has no executorState"
header=\$(kubectl get sparkapp | head -1 | tr -s ' ')
[ "\$header" = "NAME STATUS ATTEMPTS START FINISH AGE" ] || fail "kubectl get sparkapp columns: \$header"
kubectl get sparkapp wc --no-headers | grep -q "COMPLETED *1 " || fail "kubectl get sparkapp row: \$(kubectl get sparkapp wc --no-headers)"
events=\$(kubectl get events --field-selector involvedObject.kind=SparkApplication,involvedObject.name=wc -o jsonpath='{range .items[*]}{.reason} {end}')
for r in SparkApplicationSubmitted SparkDriverRunning SparkApplicationCompleted; do
    echo "\$events" | grep -qw \$r || fail "no \$r event on wc: \$events"
done

step "a failing application retried twice, then FAILED"
RESTART=OnFailure MAIN=always_fail app failing "$BUILD/tests/jobs/testjobs.so" | kubectl apply -f - >/dev/null || fail "failing refused"
wait_until 300 "failing FAILED" is_state failing FAILED || on_fail "failing did not end FAILED: \$(state failing)"
[ "\$(kubectl get sparkapp failing -o jsonpath='{.status.executionAttempts}')" = 3 ] ||
    on_fail "failing ran \$(kubectl get sparkapp failing -o jsonpath='{.status.executionAttempts}') times, expected 3"
# the drivers of the first two attempts were deleted before the next attempt, as Kubeflow does
[ "\$(kubectl get pods -l sparkoperator.k8s.io/app-name=failing,spark-role=driver -o name | grep -c .)" = 1 ] ||
    on_fail "failing: expected the last attempt's driver pod alone: \$(kubectl get pods -l sparkoperator.k8s.io/app-name=failing -o name)"
[ "\$(grep -c "app=default/failing driver=.* event=deleting_earlier_driver" "$T/op1.log")" = 2 ] ||
    on_fail "failing: the earlier drivers were not deleted before each rerun"
msg=\$(kubectl get sparkapp failing -o jsonpath='{.status.applicationState.errorMessage}')
echo "\$msg" | grep -q "driver container failed with ExitCode: [1-9]" || fail "failing: errorMessage: \$msg"
echo "\$msg" | grep -q "Job aborted due to stage failure: .*boom from always_fail_map" || fail "failing: the driver's reason is not in errorMessage: \$msg"
kubectl get events --field-selector involvedObject.name=failing -o jsonpath='{range .items[*]}{.reason} {end}' |
    grep -qw SparkApplicationPendingRerun || fail "failing: no SparkApplicationPendingRerun event"

step "volumes, secrets, affinity, tolerations, an init container and a sidecar reach the pods"
# one node labelled and tainted: only pods that both select it and tolerate the taint land there
node=\$(kubectl get nodes -o jsonpath='{.items[0].metadata.name}')
kubectl label node "\$node" csparkpool=dedicated >/dev/null || fail "cannot label \$node"
kubectl taint node "\$node" csparkdedicated=operator:NoSchedule >/dev/null || fail "cannot taint \$node"
kubectl create configmap podconf --from-literal=greeting=hello >/dev/null || fail "cannot create the ConfigMap"
kubectl create secret generic podsecret --from-literal=token=hidden >/dev/null || fail "cannot create the Secret"
kubectl create priorityclass cspark-batch --value=1000 >/dev/null || fail "cannot create the PriorityClass"
# what the driver and the executors both get: an emptyDir of spec.volumes, a ConfigMap, a Secret,
# the toleration and an env value from a reference (only through the pod template); the driver
# finds the node by a node affinity alone, the executors by a nodeSelector and the affinity
POD_EXTRA='    volumeMounts: [{name: scratch, mountPath: /scratch}]
    configMaps: [{name: podconf, path: /etc/podconf}]
    secrets: [{name: podsecret, path: /etc/podsecret, secretType: Generic}]
    tolerations: [{key: csparkdedicated, operator: Equal, value: operator, effect: NoSchedule}]
    affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchExpressions: [{key: csparkpool, operator: In, values: [dedicated]}]}]}}}
    env: [{name: MY_NODE, valueFrom: {fieldRef: {fieldPath: spec.nodeName}}}]
    hostAliases: [{ip: 10.1.2.3, hostnames: [store.example]}]
    dnsConfig: {options: [{name: timeout, value: "2"}]}
    podSecurityContext: {runAsUser: 185}
    securityContext: {allowPrivilegeEscalation: false}
    priorityClassName: cspark-batch'
# the driver's init container leaves a file in the shared emptyDir; its sidecar runs until the pod
# is deleted (a grace period of 1 s ends it)
DRIVER_EXTRA="\$POD_EXTRA
    terminationGracePeriodSeconds: 1
    initContainers: [{name: prepare, image: cspark:dev, imagePullPolicy: IfNotPresent, command: [sh, -c, 'echo prepared >/scratch/prepared'], volumeMounts: [{name: scratch, mountPath: /scratch}]}]
    sidecars: [{name: beside, image: cspark:dev, imagePullPolicy: IfNotPresent, command: [sleep, '3600'], volumeMounts: [{name: scratch, mountPath: /scratch}]}]" \
EXECUTOR_EXTRA="\$POD_EXTRA
    nodeSelector: {csparkpool: dedicated}
    deleteOnTermination: false" SPEC_EXTRA='  volumes: [{name: scratch, emptyDir: {}}]' \
    app podspec "$BUILD/examples/pi.so" 4 >"$T/podspec.yaml"
kubectl apply -f "$T/podspec.yaml" >/dev/null || fail "podspec refused: \$(cat "$T/podspec.yaml")"
wait_until 240 "podspec COMPLETED" is_state podspec COMPLETED || on_fail "podspec did not complete: \$(state podspec)"
for role in driver executor; do
    pods=\$(kubectl get pods -l sparkoperator.k8s.io/app-name=podspec,spark-role=\$role -o name)
    [ -n "\$pods" ] || on_fail "podspec: no \$role pods"
    want="\$node NoSchedule csparkpool scratch /scratch configmap-podconf /etc/podconf secret-podsecret /etc/podsecret spec.nodeName store.example 2 185 false 1000"
    [ \$role = executor ] && want="\$want dedicated"
    for p in \$pods; do
        got=\$(kubectl get "\$p" -o jsonpath='{.spec.nodeName} {.spec.tolerations[?(@.key=="csparkdedicated")].effect} {.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].key} {.spec.volumes[?(@.name=="scratch")].name} {.spec.containers[0].volumeMounts[?(@.name=="scratch")].mountPath} {.spec.volumes[?(@.configMap.name=="podconf")].name} {.spec.containers[0].volumeMounts[?(@.mountPath=="/etc/podconf")].mountPath} {.spec.volumes[?(@.secret.secretName=="podsecret")].name} {.spec.containers[0].volumeMounts[?(@.mountPath=="/etc/podsecret")].mountPath} {.spec.containers[0].env[?(@.name=="MY_NODE")].valueFrom.fieldRef.fieldPath} {.spec.hostAliases[0].hostnames[0]} {.spec.dnsConfig.options[0].value} {.spec.securityContext.runAsUser} {.spec.containers[0].securityContext.allowPrivilegeEscalation} {.spec.priority} {.spec.nodeSelector.csparkpool}')
        [ "\$(echo \$got)" = "\$want" ] || on_fail "podspec: \$p: \$got (expected \$want)"
    done
done
# the init container ran to its end before the driver container started; the sidecar ran beside
# the driver and still runs after it (the pod Running, the application COMPLETED by its driver
# container's exit code, as Kubeflow judges it)
drv=pod/\$(kubectl get sparkapp podspec -o jsonpath='{.status.driverInfo.podName}')
got=\$(kubectl get "\$drv" -o jsonpath='{.spec.initContainers[0].name} {.status.initContainerStatuses[0].state.terminated.exitCode} {.spec.containers[1].name} {.status.phase} {.status.containerStatuses[?(@.name=="spark-kubernetes-driver")].state.terminated.exitCode} {.spec.terminationGracePeriodSeconds}')
[ "\$got" = "prepare 0 beside Running 0 1" ] || on_fail "podspec: the driver's init container and sidecar: \$got"
init_end=\$(kubectl get "\$drv" -o jsonpath='{.status.initContainerStatuses[0].state.terminated.finishedAt}')
drv_start=\$(kubectl get "\$drv" -o jsonpath='{.status.containerStatuses[?(@.name=="spark-kubernetes-driver")].state.terminated.startedAt}')
side_start=\$(kubectl get "\$drv" -o jsonpath='{.status.containerStatuses[?(@.name=="beside")].state.running.startedAt}')
drv_end=\$(kubectl get "\$drv" -o jsonpath='{.status.containerStatuses[?(@.name=="spark-kubernetes-driver")].state.terminated.finishedAt}')
[ -n "\$init_end" ] && [ -n "\$side_start" ] && ! [[ "\$drv_start" < "\$init_end" ]] && ! [[ "\$drv_end" < "\$side_start" ]] ||
    on_fail "podspec: init container ended \$init_end, driver ran \$drv_start..\$drv_end, sidecar started \$side_start"
kubectl taint node "\$node" csparkdedicated- >/dev/null
kubectl label node "\$node" csparkpool- >/dev/null
kubectl delete configmap podconf >/dev/null
kubectl delete secret podsecret >/dev/null
kubectl delete priorityclass cspark-batch >/dev/null

step "an edited spec reruns the application"
app edited "$BUILD/examples/pi.so" 4 | kubectl apply -f - >/dev/null || fail "edited refused"
wait_until 240 "edited COMPLETED" is_state edited COMPLETED || on_fail "edited did not complete: \$(state edited)"
first=\$(kubectl get sparkapp edited -o jsonpath='{.status.driverInfo.podName}')
kubectl patch sparkapp edited --type merge -p '{"spec":{"arguments":["7"]}}' >/dev/null || fail "cannot edit edited"
gen=\$(kubectl get sparkapp edited -o jsonpath='{.metadata.generation}')
rerun_done() { is_state edited COMPLETED && [ "\$(kubectl get sparkapp edited -o jsonpath='{.status.observedGeneration}')" = "\$gen" ]; }
wait_until 240 "edited rerun and COMPLETED" rerun_done || on_fail "edited was not rerun: \$(state edited)"
sed -n '/app=default\/edited state=INVALIDATING/,\$p' "$T/op1.log" | grep -o "app=default/edited state=[A-Z_]*\|app=default/edited attempt=1" |
    sed 's/.*state=//; s/.*attempt=1/SUBMITTED/' | tr '\n' ' ' | grep -q "^INVALIDATING PENDING_RERUN SUBMITTED .*COMPLETED" ||
    on_fail "edited: states after the edit: \$(grep -o "app=default/edited state=[A-Z_]*" "$T/op1.log" | tr '\n' ' ')"
# the edited spec's attempts count from 1 again, as Kubeflow resets them (its first attempt's
# driver still has a name of its own: the identity hashes the generation in)
st=\$(kubectl get sparkapp edited -o jsonpath='{.status.submissionAttempts} {.status.executionAttempts} {.status.driverInfo.podName}')
set -- \$st
[ "\$1 \$2" = "1 1" ] && [ "\$3" != "\$first" ] || on_fail "edited status after the rerun: \$st (first driver \$first)"
grep -q "app=default/edited state=INVALIDATING" "$T/op1.log" && [ "\$(grep -c "app=default/edited attempt=1 .*event=submitted" "$T/op1.log")" = 2 ] ||
    on_fail "edited: the rerun was not submitted as attempt 1"
[ -z "\$(kubectl get pod "\$first" -o name --ignore-not-found)" ] || on_fail "edited: the first driver \$first was not deleted"
kubectl logs "\$3" | grep -q "^Pi is roughly 3.1" || on_fail "edited: the rerun's driver did not print pi"
kubectl get events --field-selector involvedObject.name=edited -o jsonpath='{range .items[*]}{.reason} {end}' |
    grep -qw SparkApplicationSpecUpdateProcessed || fail "edited: no SparkApplicationSpecUpdateProcessed event"

step "an edited spec reruns a running application"
MAIN=slow app busy "$BUILD/tests/jobs/testjobs.so" 5000 | kubectl apply -f - >/dev/null || fail "busy refused"
wait_until 180 "busy RUNNING" is_state busy RUNNING || on_fail "busy did not run: \$(state busy)"
first=\$(kubectl get sparkapp busy -o jsonpath='{.status.driverInfo.podName}')
kubectl patch sparkapp busy --type merge -p '{"spec":{"arguments":["10"]}}' >/dev/null || fail "cannot edit busy"
gen=\$(kubectl get sparkapp busy -o jsonpath='{.metadata.generation}')
busy_rerun() { is_state busy COMPLETED && [ "\$(kubectl get sparkapp busy -o jsonpath='{.status.observedGeneration}')" = "\$gen" ]; }
wait_until 240 "busy rerun and COMPLETED" busy_rerun || on_fail "busy was not rerun: \$(state busy)"
sed -n '/app=default\/busy state=INVALIDATING/,\$p' "$T/op1.log" | grep -o "app=default/busy state=[A-Z_]*\|app=default/busy attempt=1" |
    sed 's/.*state=//; s/.*attempt=1/SUBMITTED/' | tr '\n' ' ' | grep -q "^INVALIDATING PENDING_RERUN SUBMITTED .*COMPLETED" ||
    on_fail "busy: states after the edit: \$(grep -o "app=default/busy state=[A-Z_]*" "$T/op1.log" | tr '\n' ' ')"
sed -n '1,/app=default\/busy state=INVALIDATING/p' "$T/op1.log" | grep -q "app=default/busy state=COMPLETED" &&
    on_fail "busy completed before the edit: the edit did not meet a running application"
driver=\$(kubectl get sparkapp busy -o jsonpath='{.status.driverInfo.podName}')
[ "\$driver" != "\$first" ] && [ -z "\$(kubectl get pod "\$first" -o name --ignore-not-found)" ] ||
    on_fail "busy: the running driver \$first was not replaced and deleted (now \$driver)"
kubectl logs "\$driver" | grep -q "^count=16" || on_fail "busy: the rerun's driver did not count 16"
[ "\$(kubectl get sparkapp busy -o jsonpath='{.status.submissionAttempts} {.status.executionAttempts}')" = "1 1" ] ||
    on_fail "busy: attempts after the edit: \$(kubectl get sparkapp busy -o jsonpath='{.status.submissionAttempts} {.status.executionAttempts}')"

step "invalid specs"
app bad "$BUILD/examples/wordcount.so" x | sed 's/type: Java/type: Go/' | kubectl apply -f - >/dev/null 2>"$T/bad.err" &&
    fail "type Go was accepted"
grep -q 'Unsupported value: "Go"' "$T/bad.err" || fail "type Go refused unclearly: \$(cat "$T/bad.err")"
app badclass "$BUILD/examples/wordcount.so" x | sed 's/^  mainClass: cspark_main/  mainClass: "main(1)"/' |
    kubectl apply -f - >/dev/null || fail "badclass refused by the schema"
wait_until 60 "badclass FAILED" is_state badclass FAILED || on_fail "badclass: \$(state badclass)"
kubectl get sparkapp badclass -o jsonpath='{.status.applicationState.errorMessage}' | grep -q "^spec.mainClass 'main(1)': expected" ||
    fail "badclass errorMessage: \$(kubectl get sparkapp badclass -o jsonpath='{.status.applicationState.errorMessage}')"
[ -z "\$(kubectl get pods -l sparkoperator.k8s.io/app-name=badclass -o name)" ] || fail "badclass created pods"
# a field cspark cannot honour, and a pod field's entry the pod could not take: each named in the
# status, nothing created
DRIVER_EXTRA='    javaOptions: "-Xss4m"' app badjava "$BUILD/examples/pi.so" | kubectl apply -f - >/dev/null ||
    fail "badjava refused by the schema"
DRIVER_EXTRA='    sidecars: [{name: noimage}]' app badsidecar "$BUILD/examples/pi.so" | kubectl apply -f - >/dev/null ||
    fail "badsidecar refused by the schema"
for a in badjava badsidecar; do
    wait_until 60 "\$a FAILED" is_state \$a FAILED || on_fail "\$a: \$(state \$a)"
    [ -z "\$(kubectl get pods -l sparkoperator.k8s.io/app-name=\$a -o name)" ] || fail "\$a created pods"
done
msg=\$(kubectl get sparkapp badjava -o jsonpath='{.status.applicationState.errorMessage}')
[ "\$msg" = "spec.driver.javaOptions is not supported by cspark-operator: a cspark driver or executor runs no JVM (set sparkConf keys instead)" ] ||
    fail "badjava errorMessage: \$msg"
msg=\$(kubectl get sparkapp badsidecar -o jsonpath='{.status.applicationState.errorMessage}')
[ "\$msg" = "spec.driver.sidecars[0]: expected a container with a name and an image" ] || fail "badsidecar errorMessage: \$msg"

step "the operator SIGKILLed during a submission"
# the crash window, made certain: an operator whose service account may do everything but write
# the status creates the driver and is SIGKILLed before any status says so (as one killed between
# the driver's creation and its status write); the next one must find that driver, not make another
kubectl create serviceaccount crashing-op >/dev/null || fail "cannot create the service account"
kubectl apply -f - >/dev/null <<RBAC || fail "crashing-op's Role refused"
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: crashing-op}
rules:
  - {apiGroups: [sparkoperator.k8s.io], resources: [sparkapplications, scheduledsparkapplications], verbs: [get, list, watch]}
  - {apiGroups: [""], resources: [pods, services, configmaps, secrets], verbs: [create, get, list, watch, delete, patch]}
  - {apiGroups: [""], resources: [events], verbs: [create]}
  - {apiGroups: [coordination.k8s.io], resources: [leases], verbs: [get, create, update]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: crashing-op}
subjects: [{kind: ServiceAccount, name: crashing-op, namespace: default}]
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: crashing-op}
RBAC
tok=\$(kubectl create token crashing-op) || fail "no token for crashing-op"
ca=\$(kubectl config view --raw -o jsonpath='{.clusters[0].cluster.certificate-authority-data}')
cat >"$T/crash.kubeconfig" <<KC
apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "\$SERVER", certificate-authority-data: "\$ca"}}]
users: [{name: crashing-op, user: {token: "\$tok"}}]
contexts: [{name: c, context: {cluster: c, user: crashing-op, namespace: default}}]
current-context: c
KC
stop_operator -TERM
KUBECONFIG="$T/crash.kubeconfig" start_operator "$T/op-crash.log"
app killed "$BUILD/examples/wordcount.so" "$T/text.txt" "$T/killed-out" | kubectl apply -f - >/dev/null || fail "killed refused"
has_driver() { [ -n "\$(kubectl get pods -l sparkoperator.k8s.io/app-name=killed,spark-role=driver -o name)" ]; }
status_refused() { grep -q "app=default/killed event=status_failed" "$T/op-crash.log"; }
wait_until 90 "killed's driver pod" has_driver || on_fail "no driver pod for killed"
wait_until 60 "the refused status write" status_refused || on_fail "the crashing operator wrote the status"
stop_operator -KILL
[ -z "\$(state killed)" ] || fail "killed has a state before the restart: \$(state killed)"
start_operator "$T/op2.log"
wait_until 240 "killed COMPLETED" is_state killed COMPLETED || on_fail "killed did not complete: \$(state killed)"
[ "\$(kubectl get pods -l sparkoperator.k8s.io/app-name=killed,spark-role=driver -o name | grep -c .)" = 1 ] ||
    on_fail "killed ran more than once: \$(kubectl get pods -l sparkoperator.k8s.io/app-name=killed -o name)"
grep -q "app=default/killed attempt=1 .*adopted=true event=submitted" "$T/op2.log" ||
    on_fail "the restarted operator did not adopt killed's driver"
[ "\$(kubectl get sparkapp killed -o jsonpath='{.status.submissionAttempts} {.status.executionAttempts}')" = "1 1" ] ||
    on_fail "killed: attempts \$(kubectl get sparkapp killed -o jsonpath='{.status.submissionAttempts} {.status.executionAttempts}')"
cat "$T"/killed-out/part-* | sort | cmp -s - "$T/ref.txt" || on_fail "killed: output differs from local[2]"

step "a ScheduledSparkApplication every minute, history limit 1"
kubectl apply -f - >/dev/null <<YAML || fail "the ScheduledSparkApplication was refused"
apiVersion: sparkoperator.k8s.io/v1beta2
kind: ScheduledSparkApplication
metadata:
  name: every-minute
  namespace: default
spec:
  schedule: "* * * * *"
  concurrencyPolicy: Forbid
  successfulRunHistoryLimit: 1
  failedRunHistoryLimit: 1
  template:
\$(app x "$BUILD/examples/pi.so" 4 | sed -n '/^spec:/,\$p' | tail -n +2 | sed 's/^/  /')
YAML
runs() { grep -o "scheduled=every-minute run=[a-z0-9-]* event=run_created" "$T/op2.log" | cut -d' ' -f2 | cut -d= -f2 | sort -u; }
first_trimmed() { [ "\$(runs | wc -l)" -ge 2 ] && grep -q "run=default/\$(runs | head -1) event=deleted" "$T/op2.log"; }
wait_until 240 "two runs, the first one trimmed" first_trimmed || on_fail "every-minute: runs \$(runs | tr '\n' ' ')"
second=\$(runs | sed -n 2p)
[ "\$(kubectl get sparkapp "\$second" -o jsonpath='{.status.applicationState.state}')" = COMPLETED ] ||
    on_fail "every-minute's second run \$second is not COMPLETED"
done_runs=\$(kubectl get sparkapp -l sparkoperator.k8s.io/scheduled-app-name=every-minute -o jsonpath='{.items[*].status.applicationState.state}' | tr ' ' '\\n' | grep -c COMPLETED)
[ "\$done_runs" -le 1 ] || on_fail "every-minute keeps \$done_runs completed runs, limit 1"
past=\$(kubectl get scheduledsparkapp every-minute -o jsonpath='{.status.pastSuccessfulRunNames[*]} {.status.scheduleState}')
case "\$past" in "\$second Scheduled" | "\$(runs | sed -n 3p) Scheduled") ;; *) on_fail "every-minute status: \$past" ;; esac
kubectl get sparkapp "\$second" -o jsonpath='{.metadata.ownerReferences[0].kind}' | grep -qx ScheduledSparkApplication ||
    fail "the run is not owned by its ScheduledSparkApplication"

step "kubectl delete sparkapp leaves nothing"
kubectl delete scheduledsparkapp --all --wait=true >/dev/null || fail "kubectl delete scheduledsparkapp failed"
kubectl delete sparkapp --all --wait=true >/dev/null || fail "kubectl delete sparkapp failed"
expect_nothing_left "after kubectl delete sparkapp"
stop_operator -TERM

step "the operator as deploy/operator/operator.yaml's Deployment, in a pod"
# the API server by the address the drivers reach it at in this cluster; the image's pi.so
sed "s|k8s://https://kubernetes.default.svc|k8s://\$SERVER|" "$SRC/deploy/operator/operator.yaml" |
    kubectl apply -f - >/dev/null || fail "deploy/operator/operator.yaml refused"
op_running() { kubectl -n cspark-operator get pods -l app.kubernetes.io/name=cspark-operator -o jsonpath='{.items[*].status.phase}' | grep -qx Running; }
wait_until 120 "the operator's pod Running" op_running || fail "the operator's pod: \$(kubectl -n cspark-operator get pods -o wide)"
app incluster local:///opt/spark/examples/pi.so 10 | kubectl apply -f - >/dev/null || fail "incluster refused"
wait_until 180 "incluster COMPLETED" is_state incluster COMPLETED ||
    { kubectl -n cspark-operator logs deploy/cspark-operator | tail -10 >&2; fail "incluster: \$(state incluster)"; }
kubectl logs "\$(kubectl get sparkapp incluster -o jsonpath='{.status.driverInfo.podName}')" | grep -q "^Pi is roughly 3.14" ||
    fail "incluster's driver did not print pi"
kubectl delete sparkapp incluster --wait=true >/dev/null
expect_nothing_left "after the in-cluster operator's application"
echo "inner ok"
INNER
k8s_run_inner 900
