# dev-image.sh — sourced by scripts/kubesim-run and scripts/k8s-run: prepares the image directory of
# `cspark:dev` from a build (layout: docs/kubesim-kubelet.md, "Image directories"), for the node
# agents to run cspark's pods from.
#   prepare_dev_image ROOT BUILD    -> prints the image directory (<build>/images/cspark-dev)
#   entrypoint                 deploy/entrypoint.sh when it exists, else a pass-through (exec "$@")
#   env                        SPARK_HOME=/opt/spark, PATH with /opt/spark/bin, LD_LIBRARY_PATH=/opt/spark/lib
#   workdir                    /opt/spark/work-dir
#   rootfs/opt/spark/bin       -> <build>/bin      (cspark-submit, cspark-driver, cspark-executor, ...)
#   rootfs/opt/spark/lib       -> <build>/lib      (libcspark.so)
#   rootfs/opt/spark/examples  -> <build>/examples (example jobs, when built)
#   rootfs/opt/spark/work-dir/ an empty directory
prepare_dev_image() {
    local root=$1 build=$2 img="$2/images/cspark-dev" d
    mkdir -p "$img/rootfs/opt/spark/work-dir" || return 1
    if [ -f "$root/deploy/entrypoint.sh" ]; then
        cp "$root/deploy/entrypoint.sh" "$img/entrypoint.tmp"
    else
        printf '#!/bin/sh\n# pass-through entrypoint (no deploy/entrypoint.sh in this tree)\nexec "$@"\n' >"$img/entrypoint.tmp"
    fi
    chmod 755 "$img/entrypoint.tmp" && mv -f "$img/entrypoint.tmp" "$img/entrypoint"
    for d in bin lib examples; do
        if [ -d "$build/$d" ]; then ln -sfn "$build/$d" "$img/rootfs/opt/spark/$d"; fi
    done
    cat >"$img/env" <<'ENV'
SPARK_HOME=/opt/spark
PATH=/opt/spark/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
LD_LIBRARY_PATH=/opt/spark/lib
ENV
    echo /opt/spark/work-dir >"$img/workdir"
    echo "$img"
}
