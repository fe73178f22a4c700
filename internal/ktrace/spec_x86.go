//go:build 386 || amd64

package ktrace

import "github.com/cilium/ebpf"

// loadSpec returns the kernel programs and maps, compiled for x86.
func loadSpec() (*ebpf.CollectionSpec, error) {
	return loadKtrace()
}
