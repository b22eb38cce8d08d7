#!/usr/bin/env bash
# k8s/conf_keys.sh — every spark.kubernetes.* key of Spark 4.1 set to a value other than Spark's
# default does what Spark's documentation says, seen on the objects cspark creates, or is refused
# with one line and nothing created. One line of the table below per key (KEYS: group | key |
# value | expected), and every key of the conf tables (tools/conf_doc) must have a line:
#   refused              cspark-submit (cluster mode) exits non-zero with one line on stderr
#                        naming the key, the value and "is not supported by cspark"; nothing is
#                        created (no object; on kubesim no pod ever);
#   A, A2: EXPR          one cluster-mode submission per group with its keys, that does not wait
#                        (waitAppCompletion=false; the driver need not run): EXPR holds over D (the
#                        driver pod), S (its Service), C (its ConfigMap), K (the driver's credentials
#                        Secret, or None) and RC (cspark-submit's exit);
#   B: EXPR              one application that runs to completion with its keys (executor pods kept):
#                        EXPR holds over E (an executor pod), D, S, X (the executor ConfigMaps), L
#                        (the driver's log) and RC;
#   C, C2: EXPR          one application whose executors cannot be scheduled (scheduler name, node
#                        selector): EXPR holds over E, N (its executor pods), P (their OnDemand
#                        claims, C only) and L (the driver's log) while they are Pending;
#   D: EXPR              one application in driver-pod-only mode: EXPR holds over RC, N (executor
#                        pods it ever had) and L (the driver's log);
#   see: FILE            a behaviour no object shows (timeouts, polling): FILE shows it and names the
#                        key;
#   untested: WHY        implemented, but no test shows its effect yet: listed at the end.
# Helpers in EXPR: g(obj, "a.b.0.c"), ctr(obj) (the Spark container), env(obj, NAME), vol(obj, NAME),
# mount(obj, NAME), b64(secret, KEY) (a Secret's decoded data item). Bounded waits only (a
# submission that does not end within 120 s fails, a job within 300 s).
. "$(dirname "$0")/lib/k8s.sh"
k8s_test_init "$@"

cat >"$T/keys.txt" <<'KEYS'
A  | spark.kubernetes.namespace | keys | g(D, "metadata.namespace") == "keys"
A  | spark.kubernetes.context | the kubeconfig's context | see: tests/unit/kube/test_kube_config.c
D  | spark.kubernetes.driver.master | local[2] | RC == 0 and N == 0 and "Pi is roughly" in L
A  | spark.kubernetes.submission.waitAppCompletion | false | RC == 0 and g(D, "status.phase") != "Succeeded"
A  | spark.kubernetes.report.interval | 200ms | see: tests/k8s/submit_badinput.sh
A  | spark.kubernetes.submission.requestTimeout | 1234 | see: tests/unit/kube/test_kube_spark_keys.c
A  | spark.kubernetes.submission.connectionTimeout | 1234 | see: tests/unit/kube/test_kube_spark_keys.c
A  | spark.kubernetes.driver.requestTimeout | 1234 | see: tests/unit/kube/test_kube_spark_keys.c
A  | spark.kubernetes.driver.connectionTimeout | 1234 | see: tests/unit/kube/test_kube_spark_keys.c
A  | spark.kubernetes.appKillPodDeletionGracePeriod | 3s | see: tests/k8s/submit_kill.sh
A  | spark.kubernetes.file.upload.path | file:///shared | see: tests/k8s/shipped_files.sh
A  | spark.kubernetes.submitInDriver | true | g(C, "data.spark\\.properties").find("spark.kubernetes.submitInDriver=true") >= 0
A  | spark.kubernetes.driver.resourceNamePrefix | keys | refused
A  | spark.kubernetes.resource.type | java | refused
A  | spark.kubernetes.jars.avoidDownloadSchemes | https | refused
A  | spark.kubernetes.pyspark.pythonVersion | 3 | RC == 0
A  | spark.kubernetes.container.image | cspark:dev | ctr(D)["image"] == "cspark:dev"
A2 | spark.kubernetes.driver.container.image | keys/driver:1 | ctr(D)["image"] == "keys/driver:1"
B  | spark.kubernetes.executor.container.image | cspark:dev | ctr(E)["image"] == "cspark:dev"
A  | spark.kubernetes.container.image.pullPolicy | Always | ctr(D)["imagePullPolicy"] == "Always"
A  | spark.kubernetes.container.image.pullSecrets | keys-pull | g(D, "spec.imagePullSecrets") == [{"name": "keys-pull"}]
A  | spark.kubernetes.authenticate.submission.caCertFile | a CA file | see: tests/unit/kube/test_kube_config.c
A  | spark.kubernetes.authenticate.submission.clientCertFile | a certificate | see: tests/unit/kube/test_kube_config.c
A  | spark.kubernetes.authenticate.submission.clientKeyFile | a key | see: tests/unit/kube/test_kube_spark_keys.c
A  | spark.kubernetes.authenticate.submission.oauthToken | subtok | see: tests/k8s/submit_badinput.sh
A  | spark.kubernetes.authenticate.submission.oauthTokenFile | a token file | see: tests/unit/kube/test_kube_config.c
A  | spark.kubernetes.authenticate.driver.caCertFile | $T/creds/ca.crt | b64(K, "ca-cert") == b"ca\n" and mount(D, "/mnt/secrets/spark-kubernetes-credentials") == "kubernetes-credentials" and g(vol(D, "kubernetes-credentials"), "secret.secretName") == g(K, "metadata.name") and "driver.mounted.caCertFile=/mnt/secrets/spark-kubernetes-credentials/ca-cert" in g(C, "data.spark\\.properties")
A  | spark.kubernetes.authenticate.driver.clientCertFile | $T/creds/c.crt | b64(K, "client-cert") == b"cert\n" and "driver.mounted.clientCertFile=/mnt/secrets/spark-kubernetes-credentials/client-cert" in g(C, "data.spark\\.properties")
A  | spark.kubernetes.authenticate.driver.clientKeyFile | $T/creds/c.key | b64(K, "client-key") == b"key\n" and "driver.mounted.clientKeyFile=/mnt/secrets/spark-kubernetes-credentials/client-key" in g(C, "data.spark\\.properties")
A2 | spark.kubernetes.authenticate.driver.oauthToken | keys-token | b64(K, "oauth-token") == b"keys-token" and "keys-token" not in g(C, "data.spark\\.properties") and "driver.mounted.oauthTokenFile=/mnt/secrets/spark-kubernetes-credentials/oauth-token" in g(C, "data.spark\\.properties")
A  | spark.kubernetes.authenticate.driver.oauthTokenFile | $T/creds/token | b64(K, "oauth-token") == b"file-token\n" and "driver.mounted.oauthTokenFile=/mnt/secrets/spark-kubernetes-credentials/oauth-token" in g(C, "data.spark\\.properties")
A  | spark.kubernetes.authenticate.driver.mounted.caCertFile | a CA file in the pod | see: tests/unit/kube/test_kube_spark_keys.c
A  | spark.kubernetes.authenticate.driver.mounted.clientCertFile | a certificate in the pod | see: tests/unit/kube/test_kube_spark_keys.c
A  | spark.kubernetes.authenticate.driver.mounted.clientKeyFile | a key in the pod | see: tests/unit/kube/test_kube_spark_keys.c
A  | spark.kubernetes.authenticate.driver.mounted.oauthToken | a token | see: tests/unit/kube/test_kube_spark_keys.c
A  | spark.kubernetes.authenticate.driver.mounted.oauthTokenFile | a token file in the pod | see: tests/unit/kube/test_kube_spark_keys.c
A  | spark.kubernetes.authenticate.caCertFile | a CA file | see: tests/unit/kube/test_kube_spark_keys.c
A  | spark.kubernetes.authenticate.clientCertFile | a certificate | see: tests/unit/kube/test_kube_spark_keys.c
A  | spark.kubernetes.authenticate.clientKeyFile | a key | see: tests/unit/kube/test_kube_spark_keys.c
A  | spark.kubernetes.authenticate.oauthToken | a token | see: tests/unit/kube/test_kube_spark_keys.c
A  | spark.kubernetes.authenticate.oauthTokenFile | a token file | see: tests/unit/kube/test_kube_spark_keys.c
A  | spark.kubernetes.authenticate.driver.serviceAccountName | keys-sa | g(D, "spec.serviceAccountName") == "keys-sa"
B  | spark.kubernetes.authenticate.executor.serviceAccountName | keys-exec-sa | g(E, "spec.serviceAccountName") == "keys-exec-sa"
A  | spark.kubernetes.trust.certificates | true | see: tests/unit/kube/test_kube_client.c
A  | spark.kubernetes.driver.pod.name | keys-driver | g(D, "metadata.name") == "keys-driver"
A  | spark.kubernetes.driver.label.team | blue | g(D, "metadata.labels.team") == "blue"
A  | spark.kubernetes.driver.annotation.note | hello | g(D, "metadata.annotations.note") == "hello"
A  | spark.kubernetes.driver.service.label.svc | yes | g(S, "metadata.labels.svc") == "yes"
A  | spark.kubernetes.driver.service.annotation.svcnote | hi | g(S, "metadata.annotations.svcnote") == "hi"
B  | spark.kubernetes.driver.service.deleteOnTermination | false | S is not None
A  | spark.kubernetes.driver.service.ipFamilyPolicy | PreferDualStack | g(S, "spec.ipFamilyPolicy") == "PreferDualStack"
A  | spark.kubernetes.driver.service.ipFamilies | IPv4 | g(S, "spec.ipFamilies") == ["IPv4"]
A  | spark.kubernetes.driver.secrets.keys-secret | /mnt/keys | g(vol(D, mount(D, "/mnt/keys")), "secret.secretName") == "keys-secret"
A  | spark.kubernetes.driver.secretKeyRef.KEYS_SECRET | keys-secret:token | g(env(D, "KEYS_SECRET"), "valueFrom.secretKeyRef") == {"name": "keys-secret", "key": "token"}
A  | spark.kubernetes.driver.volumes.emptyDir.keys-scratch.mount.path | /keys-scratch | "emptyDir" in vol(D, "keys-scratch") and mount(D, "/keys-scratch") == "keys-scratch"
A  | spark.kubernetes.driverEnv.KEYS_DRIVER_ENV | set | g(env(D, "KEYS_DRIVER_ENV"), "value") == "set"
A  | spark.kubernetes.driver.request.cores | 2 | g(ctr(D), "resources.requests.cpu") == "2"
A  | spark.kubernetes.driver.limit.cores | 3 | g(ctr(D), "resources.limits.cpu") == "3"
A2 | spark.kubernetes.driver.podTemplateFile | $T/driver-template.yaml | g(D, "metadata.labels.from-template") == "driver"
A2 | spark.kubernetes.driver.podTemplateContainerName | keys-main | [c["name"] for c in g(D, "spec.containers")] == ["keys-side", "keys-main"] and g(D, "spec.containers.1.image") == "keys/driver:1"
A2 | spark.kubernetes.driver.scheduler.name | keys-driver-sched | g(D, "spec.schedulerName") == "keys-driver-sched"
A  | spark.kubernetes.driver.node.selector.keys-driver-node | yes | g(D, "spec.nodeSelector.keys-driver-node") == "yes"
A  | spark.kubernetes.driver.pod.featureSteps | org.apache.spark.deploy.k8s.features.YuniKornFeatureStep | g(D, "metadata.annotations.yunikorn\\.apache\\.org/app-id") == g(D, "metadata.labels.spark-app-selector")
A  | spark.kubernetes.driver.pod.excludedFeatureSteps | org.apache.spark.deploy.k8s.features.DriverServiceFeatureStep | refused
A  | spark.kubernetes.driver.annotateExitException | true | refused
C  | spark.kubernetes.driver.ownPersistentVolumeClaim | false | P and all("-exec-" in g(c, "metadata.ownerReferences.0.name") for c in P)
B  | spark.kubernetes.driver.reusePersistentVolumeClaim | false | see: tests/k8s/claims.sh
B  | spark.kubernetes.driver.waitToReusePersistentVolumeClaim | true | see: tests/unit/k8s/test_k8s_settings_keys.c
C  | spark.kubernetes.legacy.useReadWriteOnceAccessMode | true | P and all(g(c, "spec.accessModes") == ["ReadWriteOnce"] for c in P)
B  | spark.kubernetes.executor.podNamePrefix | keys-ex | g(E, "metadata.name").startswith("keys-ex-exec-")
B  | spark.kubernetes.executor.label.team | green | g(E, "metadata.labels.team") == "green"
B  | spark.kubernetes.executor.annotation.note | bye | g(E, "metadata.annotations.note") == "bye"
B  | spark.kubernetes.executor.secrets.keys-secret | /mnt/keys | g(vol(E, mount(E, "/mnt/keys")), "secret.secretName") == "keys-secret"
B  | spark.kubernetes.executor.secretKeyRef.KEYS_SECRET | keys-secret:token | g(env(E, "KEYS_SECRET"), "valueFrom.secretKeyRef") == {"name": "keys-secret", "key": "token"}
B  | spark.kubernetes.executor.volumes.emptyDir.keys-exec-scratch.mount.path | /keys-exec-scratch | "emptyDir" in vol(E, "keys-exec-scratch") and mount(E, "/keys-exec-scratch") == "keys-exec-scratch"
B  | spark.kubernetes.executor.request.cores | 500m | g(ctr(E), "resources.requests.cpu") in ("500m", "0.5")
B  | spark.kubernetes.executor.limit.cores | 2 | g(ctr(E), "resources.limits.cpu") == "2"
B  | spark.kubernetes.executor.podTemplateFile | $T/executor-template.yaml | g(E, "metadata.labels.from-template") == "executor"
B  | spark.kubernetes.executor.podTemplateContainerName | keys-exec-main | ctr(E)["name"] == "keys-exec-main"
C  | spark.kubernetes.executor.scheduler.name | keys-exec-sched | g(E, "spec.schedulerName") == "keys-exec-sched"
A  | spark.kubernetes.scheduler.name | keys-sched | g(D, "spec.schedulerName") == "keys-sched"
C  | spark.kubernetes.executor.node.selector.keys-exec-node | yes | g(E, "spec.nodeSelector.keys-exec-node") == "yes"
A  | spark.kubernetes.node.selector.keys-node | yes | g(D, "spec.nodeSelector.keys-node") == "yes"
A  | spark.kubernetes.memoryOverheadFactor | 0.5 | g(ctr(D), "resources.requests.memory") == "1536Mi"
A  | spark.kubernetes.local.dirs.tmpfs | true | any(v.get("emptyDir", {}).get("medium") == "Memory" for v in g(D, "spec.volumes") if v["name"].startswith("spark-local-dir-"))
A  | spark.kubernetes.configMap.maxSize | 10000 | see: tests/k8s/submit_badinput.sh
B  | spark.kubernetes.executor.disableConfigMap | true | X == []
B  | spark.kubernetes.executor.terminationGracePeriodSeconds | 7 | g(E, "spec.terminationGracePeriodSeconds") == 7
B  | spark.kubernetes.executor.decommissionLabel | keys-decom | see: tests/k8s/executor_roll.sh
B  | spark.kubernetes.executor.decommissionLabelValue | yes | see: tests/k8s/executor_roll.sh
B  | spark.kubernetes.decommission.script | /opt/other.sh | see: tests/unit/k8s/test_k8s_pod_spec.c
B  | spark.kubernetes.executor.pod.featureSteps | org.apache.spark.deploy.k8s.features.YuniKornFeatureStep | g(E, "metadata.annotations.yunikorn\\.apache\\.org/app-id") == g(E, "metadata.labels.spark-app-selector")
A  | spark.kubernetes.executor.pod.excludedFeatureSteps | org.apache.spark.deploy.k8s.features.MountVolumesFeatureStep | refused
B  | spark.kubernetes.executor.useDriverPodIP | true | g(D, "status.podIP") and g(env(E, "SPARK_DRIVER_URL"), "value").startswith("spark://CoarseGrainedScheduler@" + g(D, "status.podIP") + ":")
B  | spark.kubernetes.allocation.batch.size | 1 | see: tests/unit/k8s/test_k8s_settings_keys.c
B  | spark.kubernetes.allocation.batch.delay | 200ms | see: tests/k8s/dynamic_allocation.sh
B  | spark.kubernetes.allocation.executor.timeout | 2s | see: tests/k8s/faults_unschedulable.sh
C  | spark.kubernetes.allocation.maxPendingPods | 1 | N == 1
C2 | spark.kubernetes.allocation.maxPendingPodsPerRp | 1 | N == 1
B  | spark.kubernetes.allocation.maximum | 3 | see: tests/k8s/faults_polling.sh
B  | spark.kubernetes.allocation.driver.readinessTimeout | 5s | "event=driver_readiness" in L and "ready=true" in L and "timeout_ms=5000" in L
B  | spark.kubernetes.allocation.pods.allocator | statefulset | see: tests/k8s/statefulset_allocator.sh
B  | spark.kubernetes.dynamicAllocation.deleteGracePeriod | 1s | see: tests/unit/k8s/test_k8s_settings_keys.c
B  | spark.kubernetes.executor.apiPollingInterval | 1s | see: tests/k8s/faults_polling.sh
C  | spark.kubernetes.executor.enableApiPolling | false | "event=allocator_started" in L and "poll_interval_ms=-1" in L
B  | spark.kubernetes.executor.enableApiWatcher | false | RC == 0
A  | spark.kubernetes.executor.enablePollingWithResourceVersion | true | refused
B  | spark.kubernetes.executor.eventProcessingInterval | 2s | see: tests/unit/k8s/test_k8s_event_batch.c
A  | spark.kubernetes.executorSnapshotsSubscribersShutdownGracePeriod | 30s | refused
B  | spark.kubernetes.executor.checkAllContainers | false | see: tests/unit/k8s/test_k8s_lifecycle_manager.c
B  | spark.kubernetes.executor.deleteOnTermination | false | g(E, "metadata.labels.spark-exec-inactive") == "true"
B  | spark.kubernetes.executor.missingPodDetectDelta | 5s | see: tests/unit/k8s/test_k8s_settings_keys.c
B  | spark.kubernetes.executor.deletedExecutorsCacheTimeout | 60 | see: tests/unit/k8s/test_k8s_settings_keys.c
B  | spark.kubernetes.executor.rollInterval | 60s | see: tests/k8s/executor_roll.sh
B  | spark.kubernetes.executor.rollPolicy | ID | see: tests/k8s/executor_roll.sh
B  | spark.kubernetes.executor.minTasksPerExecutorBeforeRolling | 5 | see: tests/k8s/executor_roll.sh
A  | spark.kubernetes.kerberos.krb5.path | /etc/krb5.conf | refused
A  | spark.kubernetes.kerberos.krb5.configMapName | krb5 | refused
A  | spark.kubernetes.kerberos.tokenSecret.name | tokens | refused
A  | spark.kubernetes.kerberos.tokenSecret.itemKey | token | refused
B  | spark.kubernetes.hadoop.configMapName | keys-hadoop | all(g(vol(P, "hadoop-properties"), "configMap.name") == "keys-hadoop" and mount(P, "/opt/hadoop/conf") == "hadoop-properties" and g(env(P, "HADOOP_CONF_DIR"), "value") == "/opt/hadoop/conf" for P in (D, E))
A  | spark.kubernetes.scheduler.volcano.podGroupTemplateFile | $T/pg.yaml | see: tests/k8s/volcano_pod_group.sh
KEYS

# every key of the conf tables has a line (a family: its prefix begins a key of a line)
"$BUILD/tools/conf_doc/conf_doc" | sed -n 's/^| `\(spark\.kubernetes\.[^`<]*\)\(<name>\)\{0,1\}` .*/\1/p' >"$T/known"
[ -s "$T/known" ] || fail "tools/conf_doc printed no key"
while read -r key; do
    if [ "${key%.}" != "$key" ]; then
        grep -q "| ${key//./\\.}[^ |]* |" "$T/keys.txt" || fail "no line for the keys under $key"
    else
        grep -q "| ${key//./\\.} |" "$T/keys.txt" || fail "no line for $key"
    fi
done <"$T/known"
# ... and every "see:" file exists and names its key
sed -n 's/^[^|]*| \([^ ]*\) |.*| see: \(.*\)$/\1 \2/p' "$T/keys.txt" | while read -r key file; do
    [ -f "$SRC/$file" ] || fail "$key: $file does not exist"
    grep -q -- "$key" "$SRC/$file" || fail "$key: $file does not name it"
done

cat >"$T/driver-template.yaml" <<'YAML'
apiVersion: v1
kind: Pod
metadata:
  labels:
    from-template: driver
spec:
  containers:
  - name: keys-side
    image: cspark:dev
    command: ["sleep", "3600"]
  - name: keys-main
YAML
cat >"$T/executor-template.yaml" <<'YAML'
apiVersion: v1
kind: Pod
metadata:
  labels:
    from-template: executor
spec:
  containers:
  - name: keys-exec-main
YAML

mkdir -p "$T/creds" # the driver's credentials on the submitting machine (groups A, A2)
printf 'ca\n' >"$T/creds/ca.crt"
printf 'cert\n' >"$T/creds/c.crt"
printf 'key\n' >"$T/creds/c.key"
printf 'file-token\n' >"$T/creds/token"

cat >"$T/check.py" <<'PY'
# check.py GROUP OBJECTS_JSON: evaluates the group's expectations of keys.txt over the objects
import base64, json, sys
group, objs = sys.argv[1], json.load(open(sys.argv[2]))
def g(o, path):
    for p in path.replace("\\.", "\0").split("."):
        p = p.replace("\0", ".")
        if o is None: return None
        o = o[int(p)] if isinstance(o, list) and p.isdigit() and int(p) < len(o) else (o.get(p) if isinstance(o, dict) else None)
    return o
SPARK_CTRS = ("spark-kubernetes-driver", "spark-kubernetes-executor", "keys-main", "keys-exec-main")
def ctr(pod):
    cs = g(pod, "spec.containers") or []
    return next((c for c in cs if c["name"] in SPARK_CTRS), cs[0] if cs else {})
def env(pod, name): return next((e for e in ctr(pod).get("env", []) if e["name"] == name), None)
def vol(pod, name): return next((v for v in g(pod, "spec.volumes") or [] if v["name"] == name), {})
def b64(secret, key): return base64.b64decode(g(secret, "data." + key) or "")
def mount(pod, path): return next((m["name"] for m in ctr(pod).get("volumeMounts", []) if m["mountPath"] == path), None)
ns = dict(objs)
bad = 0
for line in open(sys.argv[3]):
    if not line.strip(): continue
    grp, key, value, expect = [f.strip() for f in line.split("|", 3)]
    if grp != group or expect == "refused" or expect.startswith(("see:", "untested:")): continue
    try:
        ok = eval(expect, globals(), ns)
    except Exception as e:
        ok = False; expect += f"  ({type(e).__name__}: {e})"
    print(("ok   " if ok else "FAIL ") + f"{key}={value}: {expect}")
    bad += not ok
sys.exit(1 if bad else 0)
PY

# "group key=value" lines as --conf arguments ($T is the test's directory)
confs() { awk -F' *[|] *' -v g="$1" -v t="$T" '$1 == g && $4 !~ /^(refused|see:|untested:)/ { v = $3; gsub(/\$T/, t, v); printf "%s=%s\n", $2, v }' "$T/keys.txt"; }
for g in A A2 B C C2 D; do confs "$g" >"$T/group-$g"; done
awk -F' *[|] *' '$4 == "refused" { print $2 "=" $3 }' "$T/keys.txt" >"$T/refused"

cat >"$T/inner.sh" <<INNER
SUBMIT="$BUILD/bin/cspark-submit"
COMMON=(--master "k8s://\$SERVER" --deploy-mode cluster --conf spark.kubernetes.container.image=cspark:dev
        --conf spark.kubernetes.report.interval=200ms --conf spark.kubernetes.allocation.batch.delay=200ms)
args() { local a=() kv; while IFS= read -r kv; do a+=(--conf "\$kv"); done <"\$1"; printf '%s\0' "\${a[@]}"; }
json_of() { kubectl get "\$@" -o json 2>/dev/null || echo null; }

# refused: one line naming the key and value, exit non-zero, nothing created
n=0
while IFS= read -r kv; do
    key=\${kv%%=*} value=\${kv#*=}
    step "refused: \$kv"
    rc=0
    timeout 120 "\$SUBMIT" "\${COMMON[@]}" --conf "\$kv" "$BUILD/examples/pi.so" 2 >"$T/out" 2>"$T/err" </dev/null || rc=\$?
    [ \$rc -ne 0 ] && [ \$rc -ne 124 ] || fail "\$kv: exit status \$rc: \$(cat "$T/err")"
    [ "\$(grep -c . "$T/err")" -eq 1 ] || fail "\$kv: expected one line on stderr, got: \$(cat "$T/err")"
    grep -qF -- "\$key: '\$value' is not supported by cspark (" "$T/err" || fail "\$kv: unclear refusal: \$(cat "$T/err")"
    [ -z "\$(objects)" ] || fail "\$kv: objects were created: \$(objects)"
    echo "ok   \$kv refused: \$(cat "$T/err")"
    n=\$((n + 1))
done <"$T/refused"
[ "\$(pod_history | /usr/bin/python3 -c 'import json,sys; print(len(json.load(sys.stdin)["pods"]))')" -eq 0 ] ||
    fail "a refused submission created a pod"
# client mode refuses them too, before the driver starts
rc=0
"\$SUBMIT" --master "k8s://\$SERVER" --conf spark.kubernetes.container.image=cspark:dev \
    --conf spark.kubernetes.executor.enablePollingWithResourceVersion=true "$BUILD/examples/pi.so" 2 >"$T/out" 2>"$T/err" </dev/null || rc=\$?
[ \$rc -ne 0 ] && grep -q "spark.kubernetes.executor.enablePollingWithResourceVersion: 'true' is not supported by cspark" "$T/err" ||
    fail "client mode: enablePollingWithResourceVersion not refused: \$(cat "$T/err")"
[ -z "\$(objects)" ] || fail "client mode: objects were created: \$(objects)"

# A, A2: the driver's objects, created without waiting (namespace keys, its own service account)
kubectl create namespace keys >/dev/null || fail "cannot create the namespace keys"
kubectl -n keys create serviceaccount keys-sa >/dev/null || fail "no service account keys-sa"
for grp in A A2; do
    step "group \$grp: the driver's objects"
    extra=()
    [ \$grp = A2 ] && extra=(--conf spark.kubernetes.namespace=keys --conf spark.kubernetes.authenticate.driver.serviceAccountName=keys-sa
        --conf spark.kubernetes.driver.pod.name=keys-driver)
    mapfile -d '' conf < <(args "$T/group-\$grp")
    rc=0
    timeout 120 "\$SUBMIT" "\${COMMON[@]}" --conf spark.kubernetes.submission.waitAppCompletion=false "\${extra[@]}" \
        "\${conf[@]}" "$BUILD/examples/pi.so" 2 >"$T/out" 2>"$T/err" </dev/null || rc=\$?
    D=\$(json_of -n keys pod keys-driver)
    S=\$(kubectl -n keys get services -o json | /usr/bin/python3 -c 'import json,sys; i=json.load(sys.stdin)["items"]; print(json.dumps(i[0] if i else None))')
    C=\$(kubectl -n keys get configmaps -l spark-role=driver -o json 2>/dev/null | /usr/bin/python3 -c 'import json,sys; i=json.load(sys.stdin)["items"]; print(json.dumps(i[0] if i else None))')
    K=\$(kubectl -n keys get secrets -o json | /usr/bin/python3 -c 'import json,sys; i=[s for s in json.load(sys.stdin)["items"] if s["metadata"]["name"].endswith("-kubernetes-credentials")]; print(json.dumps(i[0] if i else None))')
    printf '{"D": %s, "S": %s, "C": %s, "K": %s, "RC": %d}' "\$D" "\$S" "\$C" "\$K" \$rc >"$T/objs-\$grp.json"
    /usr/bin/python3 "$T/check.py" \$grp "$T/objs-\$grp.json" "$T/keys.txt" || fail "group \$grp (cspark-submit exit \$rc: \$(tail -2 "$T/err"))"
    kubectl -n keys delete pod keys-driver --wait=false >/dev/null
    kubectl -n keys delete services,configmaps,secrets -l spark-app-selector --wait=false >/dev/null 2>&1
    wait_until 60 "keys-driver to be gone" sh -c '! kubectl -n keys get pod keys-driver' || fail "keys-driver stays"
done

# B: an application that runs to completion; its executor pods are kept
step "group B: an application with executor keys"
kubectl create secret generic keys-secret --from-literal=token=t >/dev/null || fail "no secret keys-secret"
kubectl create serviceaccount keys-exec-sa >/dev/null || fail "no service account keys-exec-sa"
kubectl create configmap keys-hadoop --from-literal=core-site.xml='<configuration/>' >/dev/null ||
    fail "no ConfigMap keys-hadoop"
mapfile -d '' conf < <(args "$T/group-B")
rc=0
# the application from the build's volume (local://): without an executor ConfigMap
# (disableConfigMap) the executors cannot be given an uploaded one
timeout 300 "\$SUBMIT" "\${COMMON[@]}" --conf spark.executor.instances=2 "\${conf[@]}" \
    "local://$BUILD/examples/pi.so" 4 >"$T/out" 2>"$T/err" </dev/null || rc=\$?
grep -q 'phase=Succeeded exit_code=0' "$T/err" || fail "group B: the application did not succeed (exit \$rc): \$(tail -5 "$T/err")
executor: \$(kubectl logs -l spark-role=executor --tail=5 2>&1 | tail -8)"
E=\$(kubectl get pods -l spark-role=executor -o json | /usr/bin/python3 -c 'import json,sys; i=json.load(sys.stdin)["items"]; print(json.dumps(i[0] if i else None))')
D=\$(kubectl get pods -l spark-role=driver -o json | /usr/bin/python3 -c 'import json,sys; i=json.load(sys.stdin)["items"]; print(json.dumps(i[0] if i else None))')
S=\$(kubectl get services -l spark-app-selector -o json | /usr/bin/python3 -c 'import json,sys; i=json.load(sys.stdin)["items"]; print(json.dumps(i[0] if i else None))')
X=\$(kubectl get configmaps -o json | /usr/bin/python3 -c 'import json,sys; print(json.dumps([c["metadata"]["name"] for c in json.load(sys.stdin)["items"] if c["metadata"]["name"].startswith("spark-exec-")]))')
L=\$(kubectl logs -l spark-role=driver --tail=-1 | /usr/bin/python3 -c 'import json,sys; print(json.dumps(sys.stdin.read()))')
printf '{"D": %s, "E": %s, "S": %s, "X": %s, "L": %s, "RC": %d}' "\$D" "\$E" "\$S" "\$X" "\$L" \$rc >"$T/objs-B.json"
/usr/bin/python3 "$T/check.py" B "$T/objs-B.json" "$T/keys.txt" || fail "group B"
kubectl delete pods,services,configmaps,secrets -l spark-app-selector --wait=false >/dev/null 2>&1
kubectl delete secret keys-secret >/dev/null
kubectl delete configmap keys-hadoop >/dev/null

# C, C2: executors that cannot be scheduled, seen while Pending; at most one pending at a time
V=spark.kubernetes.executor.volumes.persistentVolumeClaim.data
for grp in C C2; do
    step "group \$grp: executors that stay Pending"
    mapfile -d '' conf < <(args "$T/group-\$grp")
    sel=(--conf spark.kubernetes.executor.node.selector.keys-exec-node=yes)
    [ \$grp = C ] && sel+=(--conf \$V.mount.path=/data --conf \$V.options.claimName=OnDemand
        --conf \$V.options.storageClass=keys-class --conf \$V.options.sizeLimit=1Gi)
    timeout 300 "\$SUBMIT" "\${COMMON[@]}" --conf spark.executor.instances=3 "\${sel[@]}" "\${conf[@]}" \
        --conf spark.kubernetes.submission.waitAppCompletion=false "$BUILD/examples/pi.so" 2 >"$T/out" 2>"$T/err" </dev/null ||
        fail "group \$grp: cspark-submit failed: \$(tail -3 "$T/err")"
    one_exec() { [ "\$(kubectl get pods -l spark-role=executor -o name | wc -l)" -ge 1 ]; }
    wait_until 120 "an executor pod" one_exec || fail "group \$grp: no executor pod"
    sleep 3 # 15 allocation rounds: a second pending pod would be made in the first
    E=\$(kubectl get pods -l spark-role=executor -o json | /usr/bin/python3 -c 'import json,sys; i=json.load(sys.stdin)["items"]; print(json.dumps(i[0] if i else None))')
    N=\$(kubectl get pods -l spark-role=executor -o name | wc -l)
    P=\$(kubectl get pvc -o json | /usr/bin/python3 -c 'import json,sys; print(json.dumps(json.load(sys.stdin)["items"]))')
    L=\$(kubectl logs -l spark-role=driver --tail=-1 | /usr/bin/python3 -c 'import json,sys; print(json.dumps(sys.stdin.read()))')
    printf '{"E": %s, "N": %d, "P": %s, "L": %s}' "\$E" "\$N" "\$P" "\$L" >"$T/objs-\$grp.json"
    /usr/bin/python3 "$T/check.py" \$grp "$T/objs-\$grp.json" "$T/keys.txt" || fail "group \$grp"
    kubectl delete pods -l spark-role=driver --wait=false >/dev/null
    kubectl delete pods,services,configmaps,secrets,pvc -l spark-app-selector --wait=false >/dev/null 2>&1
    expect_nothing_left "group \$grp"
done
# D: driver-pod-only mode, the tasks run in the driver pod
step "group D: driver-pod-only mode"
mapfile -d '' conf < <(args "$T/group-D")
rc=0
timeout 300 "\$SUBMIT" "\${COMMON[@]}" --name keys-local "\${conf[@]}" "local://$BUILD/examples/pi.so" 4 >"$T/out" 2>"$T/err" </dev/null || rc=\$?
N=\$(pod_history | /usr/bin/python3 -c 'import json,sys; print(sum("-exec-" in p["name"] and p["name"].startswith("keys-local-") for p in json.load(sys.stdin)["pods"]))')
L=\$(kubectl logs -l spark-role=driver --tail=-1 | /usr/bin/python3 -c 'import json,sys; print(json.dumps(sys.stdin.read()))')
printf '{"N": %d, "L": %s, "RC": %d}' "\$N" "\$L" \$rc >"$T/objs-D.json"
/usr/bin/python3 "$T/check.py" D "$T/objs-D.json" "$T/keys.txt" || fail "group D (exit \$rc: \$(tail -3 "$T/err"))"
kubectl delete pods,services,configmaps,secrets -l spark-app-selector --wait=false >/dev/null 2>&1
expect_nothing_left "group D"
echo "ok   \$n refused keys, one line each, nothing created"
awk -F' *[|] *' '\$4 ~ /^untested:/ { print "untested " \$2 ": " substr(\$4, 11) }' "$T/keys.txt"
echo "inner ok"
INNER
k8s_run_inner 700
grep -E '^(ok|FAIL|untested) ' "$T/run.log"
echo "PASS: $K8S_TEST"
