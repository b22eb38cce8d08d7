#!/usr/bin/env bash
# s3a_pod_template.sh — pod templates from an object store, as Spark downloads a remote
# spark.kubernetes.{driver,executor}.podTemplateFile: with both on s3a://, a cluster-mode dry run
# (no API server) builds the driver pod from the driver template (its label, its sidecar, an
# unknown podTemplateContainerName falling back to the first container as Spark) and ships the
# executor template in the driver's ConfigMap as pod-spec-template.yml; a template object that
# does not exist is one line naming the key and the URI, exit non-zero.
. "$(dirname "$0")/../lib/prelude.sh"
lib_init "$@"
. "$SRC/tests/s3/lib/s3.sh"
trap 's3_server_stop; _lib_cleanup' EXIT
s3_server_start "$BUILD" || fail "cannot start the S3 server"
s3_mb tpl || fail "cannot create bucket tpl"
cat >"$T/driver.yaml" <<'YAML'
apiVersion: v1
kind: Pod
metadata:
  labels:
    from-s3-template: driver
spec:
  containers:
  - name: spark-main
    image: placeholder
  - name: log-shipper
    image: busybox
YAML
cat >"$T/exec.yaml" <<'YAML'
apiVersion: v1
kind: Pod
metadata:
  labels:
    from-s3-template: executor
YAML
s3_put "$T/driver.yaml" tpl/templates/driver.yaml || fail "cannot upload the driver template"
s3_put "$T/exec.yaml" tpl/templates/exec.yaml || fail "cannot upload the executor template"

SUB=("$BIN/cspark-submit" --master k8s://https://127.0.0.1:1 --deploy-mode cluster
    --conf cspark.kubernetes.dryRun=true --conf spark.kubernetes.container.image=cspark:dev)
"${SUB[@]}" --conf spark.kubernetes.driver.podTemplateFile=s3a://tpl/templates/driver.yaml \
    --conf spark.kubernetes.driver.podTemplateContainerName=not-there \
    --conf spark.kubernetes.executor.podTemplateFile=s3a://tpl/templates/exec.yaml \
    local:///opt/spark/examples/wordcount.so in out >"$T/dry.yaml" 2>"$T/dry.err" ||
    fail "dry run failed: $(cat "$T/dry.err")"
"$PY" - "$T/dry.yaml" <<'PY' || fail "dry-run objects: see above"
import sys, yaml
objs = list(yaml.safe_load_all(open(sys.argv[1])))
pod = [o for o in objs if o and o["kind"] == "Pod"][0]
cm = [o for o in objs if o and o["kind"] == "ConfigMap"][0]
errs = []
if pod["metadata"]["labels"].get("from-s3-template") != "driver":
    errs.append("driver labels %s" % pod["metadata"]["labels"])
names = [c["name"] for c in pod["spec"]["containers"]]
if names != ["spark-main", "log-shipper"]: errs.append("containers %s" % names)
if pod["spec"]["containers"][0]["image"] != "cspark:dev": errs.append("Spark's container is not the first")
tpl = cm["data"].get("pod-spec-template.yml", "")
if "from-s3-template: executor" not in tpl: errs.append("executor template not shipped: %r" % tpl[:200])
if "spark.kubernetes.executor.podTemplateFile=/opt/spark/conf/pod-spec-template.yml" not in cm["data"]["spark.properties"]:
    errs.append("executor template key not rewritten")
if errs: sys.exit("; ".join(errs))
PY
grep -q "falling back to taking the first container" "$T/dry.err" ||
    fail "no warning for the unknown container name: $(cat "$T/dry.err")"

rc=0
"${SUB[@]}" --conf spark.kubernetes.driver.podTemplateFile=s3a://tpl/templates/missing.yaml \
    local:///opt/spark/examples/wordcount.so >"$T/miss.out" 2>"$T/miss.err" || rc=$?
[ $rc -ne 0 ] || fail "a missing template object was accepted"
assert_contains "$T/miss.err" "spark.kubernetes.driver.podTemplateFile" "the refusal names the key"
assert_contains "$T/miss.err" "s3a://tpl/templates/missing.yaml" "the refusal names the URI"
[ "$(wc -l <"$T/miss.err")" -eq 1 ] || fail "the refusal is not one line: $(cat "$T/miss.err")"
[ ! -s "$T/miss.out" ] || fail "a refused submission printed objects"
log ok
