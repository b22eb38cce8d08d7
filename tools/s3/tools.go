//go:build tools

// Package tools pins the S3 server the tests run (versitygw's S3 gateway over a posix
// directory): `go build` of github.com/versity/versitygw/cmd/versitygw in this module builds the
// version go.mod names, with go.sum's checksums. tools/s3/build.sh does it.
package tools

import _ "github.com/versity/versitygw/cmd/versitygw"
