// Command coredns is CoreDNS (github.com/coredns/coredns, pinned in ../go.mod) with only the plugins the
// test cluster of scripts/k8s-up uses: cluster DNS from the API server (kubernetes), a cache, health and
// readiness endpoints, and the bind/errors/log plumbing. The full plugin set would pull in every cloud
// provider's SDK and double the build; this file only selects plugins, the code is CoreDNS's.
package main

import (
	"github.com/coredns/coredns/core/dnsserver"
	"github.com/coredns/coredns/coremain"

	_ "github.com/coredns/coredns/plugin/bind"
	_ "github.com/coredns/coredns/plugin/cache"
	_ "github.com/coredns/coredns/plugin/errors"
	_ "github.com/coredns/coredns/plugin/health"
	_ "github.com/coredns/coredns/plugin/kubernetes"
	_ "github.com/coredns/coredns/plugin/log"
	_ "github.com/coredns/coredns/plugin/ready"
)

// Directives in CoreDNS's own chain order (plugin.cfg), restricted to the plugins imported above.
func init() {
	dnsserver.Directives = []string{"bind", "ready", "health", "errors", "log", "cache", "kubernetes"}
}

func main() { coremain.Run() }
