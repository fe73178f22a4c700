//go:build !(386 || amd64)

package ktrace

import (
	"fmt"
	"runtime"

	"github.com/cilium/ebpf"
)

// loadSpec: the kernel programs read x86's registers (the system call
// number a thread sleeps in) and are compiled for x86 only.
func loadSpec() (*ebpf.CollectionSpec, error) {
	return nil, fmt.Errorf("the kernel programs are built for x86 only, not %s", runtime.GOARCH)
}
