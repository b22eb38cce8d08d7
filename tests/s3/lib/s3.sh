# s3.sh — the S3 server of the tests, sourced by scripts/s3-run and tests/s3/*.sh: a real S3
# server (versitygw's gateway over a posix directory, built once per pin by tools/s3/build.sh)
# started on loopback with credentials enforced, and small curl helpers (SigV4-signed by curl)
# to make buckets and look at what a job left behind.
#
#   s3_server_start BUILD_DIR   starts a fresh server; exports AWS_ENDPOINT_URL, AWS_ACCESS_KEY_ID,
#                               AWS_SECRET_ACCESS_KEY, AWS_REGION; sets S3_PID, S3_PORT, S3_ROOT.
#                               S3_BIND=ADDR listens there instead of 127.0.0.1 (0.0.0.0: also
#                               on the addresses pods in their own network namespaces reach)
#   s3_server_stop              stops it and removes its directory (safe to call twice)
#   s3_server_pause / s3_server_resume   SIGSTOP/SIGCONT it (a server that stops answering)
#   s3_mb BUCKET                creates a bucket
#   s3_put FILE BUCKET/KEY      uploads a file
#   s3_get BUCKET/KEY           prints an object
#   s3_keys BUCKET [PREFIX]     prints the keys under PREFIX, one a line, sorted
#   s3_uploads BUCKET [PREFIX]  prints the keys of multipart uploads started and not completed
# The caller sets its own EXIT trap and calls s3_server_stop from it.

S3_ROOT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
S3_PID=
S3_ROOT=

s3_server_start() {
    local build=$1 bin port i
    bin=$("$S3_ROOT_DIR/tools/s3/build.sh" "$build") || return 3
    S3_ROOT=$(mktemp -d /tmp/cspark-s3-XXXXXX)
    mkdir -p "$S3_ROOT/data" "$S3_ROOT/meta"
    port=$(/usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
    S3_PORT=$port
    export AWS_ACCESS_KEY_ID="AKCSPARK$(od -An -N6 -tx1 /dev/urandom | tr -d ' \n' | tr a-f A-F)"
    export AWS_SECRET_ACCESS_KEY="$(od -An -N20 -tx1 /dev/urandom | tr -d ' \n')"
    export AWS_REGION=us-east-1
    export AWS_ENDPOINT_URL="http://127.0.0.1:$port"
    "$bin" --port "${S3_BIND:-127.0.0.1}:$port" --access "$AWS_ACCESS_KEY_ID" --secret "$AWS_SECRET_ACCESS_KEY" \
        --region us-east-1 --quiet posix --sidecar "$S3_ROOT/meta" "$S3_ROOT/data" >"$S3_ROOT/server.log" 2>&1 &
    S3_PID=$!
    for i in $(seq 1 200); do
        if curl -s -o /dev/null --max-time 1 "$AWS_ENDPOINT_URL/"; then return 0; fi
        kill -0 "$S3_PID" 2>/dev/null || break
        sleep 0.05
    done
    echo "s3.sh: the S3 server did not start: $(tail -5 "$S3_ROOT/server.log")" >&2
    s3_server_stop
    return 2
}

s3_server_stop() {
    if [ -n "$S3_PID" ]; then
        kill -CONT "$S3_PID" 2>/dev/null
        kill "$S3_PID" 2>/dev/null
        wait "$S3_PID" 2>/dev/null
        S3_PID=
    fi
    [ -n "$S3_ROOT" ] && rm -rf "$S3_ROOT"
    S3_ROOT=
}

s3_server_pause() { kill -STOP "$S3_PID"; }
s3_server_resume() { kill -CONT "$S3_PID"; }

# s3_curl METHOD PATH-AND-QUERY [CURL_ARGS...]
s3_curl() {
    local m=$1 p=$2
    shift 2
    curl -s --aws-sigv4 "aws:amz:us-east-1:s3" --user "$AWS_ACCESS_KEY_ID:$AWS_SECRET_ACCESS_KEY" \
        -H "x-amz-content-sha256: UNSIGNED-PAYLOAD" -X "$m" "$@" "$AWS_ENDPOINT_URL/$p"
}

s3_mb() { [ "$(s3_curl PUT "$1" -o /dev/null -w '%{http_code}')" = 200 ]; }
s3_put() { [ "$(s3_curl PUT "$2" -T "$1" -o /dev/null -w '%{http_code}')" = 200 ]; }
s3_get() { s3_curl GET "$1" --fail; }

# the canonical query: list-type=2&prefix=<encoded>
s3_urlencode() { /usr/bin/python3 -c 'import sys, urllib.parse; print(urllib.parse.quote(sys.argv[1], safe="-_.~"))' "$1"; }
s3_keys() {
    local token="" out q
    while :; do
        q="list-type=2&prefix=$(s3_urlencode "${2:-}")"
        [ -n "$token" ] && q="continuation-token=$(s3_urlencode "$token")&$q"
        out=$(s3_curl GET "$1?$q")
        echo "$out" | grep -o '<Key>[^<]*</Key>' | sed 's/<Key>\(.*\)<\/Key>/\1/'
        echo "$out" | grep -q '<IsTruncated>true</IsTruncated>' || break
        token=$(echo "$out" | grep -o '<NextContinuationToken>[^<]*' | sed 's/.*>//')
    done | sort
}
s3_uploads() {
    s3_curl GET "$1?prefix=$(s3_urlencode "${2:-}")&uploads=" | grep -o '<Key>[^<]*</Key>' |
        sed 's/<Key>\(.*\)<\/Key>/\1/' | sort
}

# s3_cat_parts BUCKET PREFIX: the part files of a saved RDD, in name order; fails (returns 1) when
# _SUCCESS or the parts are missing.
s3_cat_parts() {
    local keys k
    keys=$(s3_keys "$1" "$2/")
    echo "$keys" | grep -qx "$2/_SUCCESS" || { echo "s3_cat_parts: no $2/_SUCCESS" >&2; return 1; }
    echo "$keys" | grep -q "^$2/part-" || { echo "s3_cat_parts: no parts under $2" >&2; return 1; }
    for k in $(echo "$keys" | grep "^$2/part-"); do s3_get "$1/$k" || return 1; done
}
