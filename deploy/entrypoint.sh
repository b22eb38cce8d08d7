#!/bin/sh
# entrypoint.sh — the container entrypoint of the cspark image, with Spark's modes:
#   driver ARGS...    the driver of a cluster-mode application: cspark-submit in client mode
#                     inside the driver pod, binding the pod's address
#   executor          an executor: cspark-executor with the pod's SPARK_* environment
#   anything else     run as given (pass-through), e.g. `cspark-submit ...` or a shell
# The image sets SPARK_HOME=/opt/spark and puts /opt/spark/bin on PATH.
set -e
: "${SPARK_HOME:=/opt/spark}"

# An arbitrary UID (OpenShift-style) still gets a passwd entry, as Spark's entrypoint does.
if ! whoami >/dev/null 2>&1 && [ -w /etc/passwd ]; then
    echo "${USER_NAME:-spark}:x:$(id -u):$(id -g):cspark user:${HOME:-/tmp}:/bin/false" >>/etc/passwd
fi

case "${1:-}" in
driver)
    shift
    exec "$SPARK_HOME/bin/cspark-submit" --conf "spark.driver.bindAddress=${SPARK_DRIVER_BIND_ADDRESS:-0.0.0.0}" \
        --deploy-mode client "$@"
    ;;
executor)
    shift
    exec "$SPARK_HOME/bin/cspark-executor" \
        --driver-url "$SPARK_DRIVER_URL" \
        --executor-id "$SPARK_EXECUTOR_ID" \
        --cores "${SPARK_EXECUTOR_CORES:-1}" \
        --app-id "$SPARK_APPLICATION_ID" \
        --hostname "${SPARK_EXECUTOR_POD_IP:-$(hostname -i 2>/dev/null || echo 127.0.0.1)}" \
        --resourceProfileId "${SPARK_RESOURCE_PROFILE_ID:-0}" \
        --podName "${SPARK_EXECUTOR_POD_NAME:-}"
    ;;
*)
    exec "$@"
    ;;
esac
