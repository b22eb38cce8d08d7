#!/usr/bin/env bash
# submit_bad_conf.sh — malformed configuration fails fast, naming the key and value, from
# --conf, explicit options and properties files; exit status non-zero and nothing else started.
# Usage: submit_bad_conf.sh BUILD_DIR
. "$(dirname "$0")/lib/submit.sh" "$@"
: >"$T/app.so" # exists, but validation must fail before it is ever loaded

expect_error "cspark-submit: invalid value for spark.executor.memory: '12q' (expected a size such as 512m or 2g)" \
    --conf spark.executor.memory=12q "$T/app.so"
expect_error "cspark-submit: invalid value for spark.executor.memory: '1.5g' (expected a size such as 512m or 2g)" \
    --executor-memory 1.5g "$T/app.so"
expect_error "cspark-submit: invalid value for spark.driver.memory: 'big' (expected a size such as 512m or 2g)" \
    --driver-memory=big "$T/app.so"
expect_error "cspark-submit: invalid value for spark.executor.cores: 'two' (expected an integer)" \
    --executor-cores two "$T/app.so"
expect_error "cspark-submit: invalid value for spark.executor.instances: '-2' (expected a non-negative integer)" \
    --num-executors -2 "$T/app.so"
expect_error "cspark-submit: invalid value for spark.network.timeout: '2 min' (expected a duration such as 120s, 500ms or 5min)" \
    --conf "spark.network.timeout=2 min" "$T/app.so"
expect_error "cspark-submit: invalid value for spark.shuffle.compress: 'yes' (expected true or false)" \
    --conf spark.shuffle.compress=yes "$T/app.so"
expect_error "cspark-submit: invalid value for spark.shuffle.checksum.algorithm: 'MD5' (expected ADLER32, CRC32, CRC32C or XXH3)" \
    --conf spark.shuffle.checksum.algorithm=MD5 "$T/app.so"
expect_error "cspark-submit: invalid value for spark.memory.fraction: '1.2' (expected a number in (0, 1])" \
    --conf spark.memory.fraction=1.2 "$T/app.so"
expect_error "cspark-submit: invalid value for spark.submit.deployMode: 'both' (expected client or cluster)" \
    --deploy-mode both "$T/app.so"
expect_error "cspark-submit: invalid value for cspark.log.level: 'LOUD' (expected DEBUG, INFO, WARN or ERROR)" \
    --conf cspark.log.level=LOUD "$T/app.so"
CSPARK_LOG_LEVEL=LOUD expect_error "cspark-submit: invalid value for CSPARK_LOG_LEVEL: 'LOUD' (expected DEBUG, INFO, WARN or ERROR)" \
    "$T/app.so"
# ranges (issue 10 item 22): accepted or misreported before
expect_error "cspark-submit: invalid value for spark.driver.port: '70000' (expected a port number between 0 and 65535)" \
    --conf spark.driver.port=70000 "$T/app.so"
expect_error "cspark-submit: invalid value for spark.network.timeout: '-5s' (expected a positive duration such as 10s or 500ms)" \
    --conf spark.network.timeout=-5s "$T/app.so"
expect_error "cspark-submit: invalid value for spark.executor.memory: '0' (expected a size of at least 32m)" \
    --executor-memory 0 "$T/app.so"

# from a properties file, and an explicit option overriding it fixes the problem
printf 'spark.executor.memory = 4x\n' >"$T/bad.properties"
expect_error "cspark-submit: invalid value for spark.executor.memory: '4x' (expected a size such as 512m or 2g)" \
    --properties-file "$T/bad.properties" "$T/app.so"
"$SUBMIT" --properties-file "$T/bad.properties" --executor-memory 4g "$T/app.so" >/dev/null 2>"$T/err"
grep -q "spark.executor.memory" "$T/err" && fail "--executor-memory must override the properties file: $(cat "$T/err")"

# from spark-defaults.conf in SPARK_CONF_DIR
mkdir -p "$T/conf"
printf 'spark.task.maxFailures  many\n' >"$T/conf/spark-defaults.conf"
expect_error "cspark-submit: invalid value for spark.task.maxFailures: 'many' (expected an integer)" "$T/app.so"
rm "$T/conf/spark-defaults.conf"

expect_error "cspark-submit: properties file $T/none.properties not found" \
    --properties-file "$T/none.properties" "$T/app.so"
printf 'a=\\u12\n' >"$T/esc.properties"
expect_error "cspark-submit: properties file $T/esc.properties: line 1: malformed \\uXXXX escape (expected 4 hex digits)" \
    --properties-file "$T/esc.properties" "$T/app.so"

echo "PASS submit_bad_conf"
