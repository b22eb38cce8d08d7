#!/usr/bin/env bash
# pyspark_client_41.sh — tests/connect/pyspark_client.sh with the pinned pyspark-client 4.1.3
# package (scripts/install-pyspark-client.sh 4.1) in place of the 4.0.1 client: the same program,
# requests and checks against cspark-connect-server, so that both clients are served alike.
# Usage: pyspark_client_41.sh BUILD_DIR
exec env CSPARK_PYSPARK_CLIENT_VERSION=4.1 bash "$(dirname "$0")/pyspark_client.sh" "$@"
