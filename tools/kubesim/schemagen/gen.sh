#!/usr/bin/env bash
# Regenerates tools/kubesim/schema_types.c from the k8s.io/api version pinned in go.mod (needs Go
# and the Go module proxy; the generated file is committed, so builds need neither).
set -euo pipefail
cd "$(dirname "$0")"
version=$(awk '$1 == "k8s.io/api" { print $2 }' go.mod)
go run . "$version" >../schema_types.c.tmp
mv ../schema_types.c.tmp ../schema_types.c
