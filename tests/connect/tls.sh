#!/usr/bin/env bash
# tls.sh — cspark-connect-server with TLS (spark.cspark.connect.tls.*, connect/grpc_tls.c) and the
# pinned PySpark client's sc://...;use_ssl=true (tests/connect/tls.py), with a self-signed
# certificate made here by openssl and trusted by the client through
# GRPC_DEFAULT_SSL_ROOTS_FILE_PATH:
#   - TLS enabled with a missing certificate, a file that is not PEM, or a key of another
#     certificate: refused with one line naming the key, non-zero exit, nothing listening;
#   - on loopback: a query succeeds over TLS; a plaintext gRPC call fails with a gRPC error;
#   - bound beyond loopback (0.0.0.0, with spark.connect.authenticate.token): a client with the
#     token over TLS, to the machine's first non-loopback IPv4 address (else 127.0.0.1), is served.
# The servers are stopped by the trap whatever happens.
# Usage: tls.sh BUILD_DIR
set -u
. "$(dirname "$0")/lib/connect.sh"
connect_test_init tls "${1:-}"
command -v openssl >/dev/null || {
  echo "SKIP: tls: no openssl command"
  exit 77
}
host_ip=$(hostname -I 2>/dev/null | tr ' ' '\n' | grep -E '^[0-9]+\.' | grep -v '^127\.' | head -n 1)
host_ip=${host_ip:-127.0.0.1}
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=localhost \
  -addext "subjectAltName=DNS:localhost,IP:127.0.0.1,IP:$host_ip" \
  -keyout "$T/key.pem" -out "$T/cert.pem" >"$T/openssl.log" 2>&1 || fail "openssl req failed"
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=other \
  -keyout "$T/other-key.pem" -out "$T/other-cert.pem" >>"$T/openssl.log" 2>&1 ||
  fail "openssl req failed"
echo "not a certificate" >"$T/garbage.pem"

# refusals: one line naming the key, non-zero exit
refused() { # WHAT KEY CERT KEYFILE
  local what=$1 key=$2 port
  port=$(free_port)
  timeout 120 "$SERVER" --master 'local[1]' --conf spark.ui.enabled=false \
    --conf "spark.connect.grpc.binding.port=$port" --conf spark.cspark.connect.tls.enabled=true \
    --conf "spark.cspark.connect.tls.certFile=$3" --conf "spark.cspark.connect.tls.keyFile=$4" \
    >"$T/refused.out" 2>"$T/refused.err" && fail "$what: the server started"
  [ "$(wc -l <"$T/refused.err")" -eq 1 ] || fail "$what: not one line: $(cat "$T/refused.err")"
  grep -q "$key" "$T/refused.err" || fail "$what: the line does not name $key: $(cat "$T/refused.err")"
  echo "refused ($what): $(cat "$T/refused.err")"
}
refused "a missing certificate" spark.cspark.connect.tls.certFile "$T/none.pem" "$T/key.pem"
refused "a certificate that is not PEM" spark.cspark.connect.tls.certFile "$T/garbage.pem" "$T/key.pem"
refused "a missing key" spark.cspark.connect.tls.keyFile "$T/cert.pem" "$T/none.pem"
refused "another certificate's key" spark.cspark.connect.tls.keyFile "$T/cert.pem" "$T/other-key.pem"

export GRPC_DEFAULT_SSL_ROOTS_FILE_PATH=$T/cert.pem
tls=(--conf spark.cspark.connect.tls.enabled=true --conf "spark.cspark.connect.tls.certFile=$T/cert.pem"
  --conf "spark.cspark.connect.tls.keyFile=$T/key.pem")
port=$(free_port)
start_cspark "$port" "$T/cspark.log" "${tls[@]}"
timeout 300 "$PY" "$SRC/tests/connect/tls.py" tls "sc://localhost:$port/;use_ssl=true" \
  >"$T/client.log" 2>&1 || fail "TLS on loopback: $(tail -n 5 "$T/client.log")"
timeout 120 "$PY" "$SRC/tests/connect/tls.py" plaintext "127.0.0.1:$port" \
  >"$T/plain.log" 2>&1 || fail "plaintext: $(tail -n 5 "$T/plain.log")"
cat "$T/client.log" "$T/plain.log"

port=$(free_port)
start_cspark "$port" "$T/cspark-any.log" "${tls[@]}" --conf spark.connect.grpc.binding.address=0.0.0.0 \
  --conf spark.connect.authenticate.token=tls-test-token
timeout 300 "$PY" "$SRC/tests/connect/tls.py" tls \
  "sc://$host_ip:$port/;use_ssl=true;token=tls-test-token" >"$T/any.log" 2>&1 ||
  fail "a token over TLS to 0.0.0.0: $(tail -n 5 "$T/any.log")"
cat "$T/any.log"
echo "PASS tls"
