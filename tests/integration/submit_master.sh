#!/usr/bin/env bash
# submit_master.sh — master URL handling in cspark-submit: malformed URLs are rejected with the
# list of accepted forms; well-formed local-cluster and k8s:// masters and --kill/--status are
# refused clearly (this build runs local masters only).
# Usage: submit_master.sh BUILD_DIR
. "$(dirname "$0")/lib/submit.sh" "$@"
: >"$T/app.so"
cp "$B/examples/pi.so" "$T/real.so" # a cluster submission checks the file it ships

FORMS="expected local, local[N], local[*], local[N,F], local-cluster[N,C,M] or k8s://https://host:port"
expect_error "cspark-submit: invalid master URL 'yarn': $FORMS" --master yarn "$T/app.so"
expect_error "cspark-submit: invalid master URL 'local[x]': $FORMS" --master 'local[x]' "$T/app.so"
expect_error "cspark-submit: invalid master URL 'spark://h:7077': $FORMS" --conf spark.master=spark://h:7077 "$T/app.so"
expect_error "cspark-submit: invalid master URL 'local[0]': asked to run locally with 0 threads (expected at least 1)" \
    --master 'local[0]' "$T/app.so"
expect_error "cspark-submit: invalid master URL 'k8s://https://h': the Kubernetes API server port is missing (expected k8s://https://host:port)" \
    --master k8s://https://h "$T/app.so"

# k8s:// masters are accepted; a cluster submission without an image is refused naming the key
expect_error "cspark-submit: no container image: set spark.kubernetes.container.image (or spark.kubernetes.driver.container.image)" \
    --master k8s://https://h:6443 --deploy-mode cluster "$T/real.so"
expect_error "cspark-submit: cluster deploy mode is not compatible with master 'local[2]' (use --deploy-mode client, or a k8s:// master)" \
    --master 'local[2]' --deploy-mode cluster "$T/app.so"
# --kill/--status need a k8s:// master (they are tested against kubesim in tests/kubesim)
expect_error "cspark-submit: --kill needs a Kubernetes master (--master k8s://https://host:port), got 'local[*]'" \
    --kill 'spark:app-driver'
expect_error "cspark-submit: --status needs a Kubernetes master (--master k8s://https://host:port), got 'local[*]'" \
    --status=spark:app-driver

# --verbose shows the master and the redacted conf even when the master is refused
"$SUBMIT" -v --master k8s://https://h:6443 --conf spark.authenticate.secret=hunter2 "$T/app.so" 2>"$T/err"
grep -q '  master                  k8s://https://h:6443' "$T/err" || fail "--verbose: no master line"
grep -q '(spark.authenticate.secret,\*\*\*\*\*\*\*\*\*(redacted))' "$T/err" || fail "--verbose: secret not redacted"
grep -q hunter2 "$T/err" && fail "--verbose printed a secret"

echo "PASS submit_master"
