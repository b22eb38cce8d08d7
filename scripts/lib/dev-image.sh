# dev-image.sh — sourced by scripts/kubesim-run and scripts/k8s-run when the build has no image
# (`make image`, scripts/image): prepares a stand-in for `cspark:dev` in the host-overlay form
# (docs/kubesim-kubelet.md, "Image directories") that maps /opt/spark to the build over the
# machine's root, for the node agents to run cspark's pods from. Writes only into DIR (the run's own
# work directory: the build may be read-only, and parallel runs must not share files).
#   prepare_dev_image ROOT BUILD DIR    -> prints DIR
#   entrypoint                 deploy/entrypoint.sh
#   env                        SPARK_HOME=/opt/spark, PATH with /opt/spark/bin, LD_LIBRARY_PATH=/opt/spark/lib
#   workdir                    /opt/spark/work-dir
#   rootfs/opt/spark/bin       -> <build>/bin      (cspark-submit, cspark-driver, cspark-executor, ...)
#   rootfs/opt/spark/lib       -> <build>/lib      (libcspark.so)
#   rootfs/opt/spark/examples  -> <build>/examples (example jobs, when built)
#   rootfs/opt/spark/work-dir/ an empty directory
prepare_dev_image() {
    local root=$1 build=$2 img=$3 d
    mkdir -p "$img/rootfs/opt/spark/work-dir" || return 1
    cp "$root/deploy/entrypoint.sh" "$img/entrypoint" && chmod 755 "$img/entrypoint" || return 1
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
