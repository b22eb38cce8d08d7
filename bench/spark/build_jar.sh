#!/usr/bin/env bash
# bench/spark/build_jar.sh — compiles the Spark side of the benchmarks (bench/spark/src/**/*.java)
# against an installed Spark's jars into BUILD_DIR/bench-spark/cspark-bench.jar, unless the jar is
# newer than every source, and prints the jar's path. Called by bench/spark_vs_cspark.sh and
# bench/spark_k8s_alloc.sh.
#
# usage: bench/spark/build_jar.sh SPARK_HOME BUILD_DIR
set -uo pipefail

SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
[ $# -eq 2 ] || { echo "usage: build_jar.sh SPARK_HOME BUILD_DIR" >&2; exit 2; }
SPARK_HOME=$1
JAR_DIR=$2/bench-spark
JAR=$JAR_DIR/cspark-bench.jar
JAVA_SRC=("$SRC"/bench/spark/src/org/cspark/bench/*.java)
stale=0
[ -f "$JAR" ] || stale=1
for s in "${JAVA_SRC[@]}"; do [ "$s" -nt "$JAR" ] && stale=1; done
if [ $stale = 1 ]; then
    echo "build_jar: compiling the Spark workloads against $(basename "$(dirname "$SPARK_HOME")")" >&2
    rm -rf "$JAR_DIR/classes" && mkdir -p "$JAR_DIR/classes" || exit 1
    javac -nowarn -d "$JAR_DIR/classes" -cp "$SPARK_HOME/jars/*" "${JAVA_SRC[@]}" || { echo "build_jar: javac failed" >&2; exit 1; }
    jar cf "$JAR.tmp" -C "$JAR_DIR/classes" org && mv "$JAR.tmp" "$JAR" || exit 1
fi
echo "$JAR"
