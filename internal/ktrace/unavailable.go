package ktrace

import (
	"errors"
	"fmt"
	"os"

	"github.com/cilium/ebpf"
	"golang.org/x/sys/unix"
)

// ErrUnavailable is wrapped by the error Start returns when no kernel
// program could be loaded and attached; the error's text says why (not
// root, no BTF, the kernel refused a program and the verifier's reason).
var ErrUnavailable = errors.New("kernel tracing unavailable")

// btfPath is where the kernel publishes its type information (BTF), which
// the programs' CO-RE relocations and BTF tracepoints need.
const btfPath = "/sys/kernel/btf/vmlinux"

// unavailable wraps ErrUnavailable with a reason.
func unavailable(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrUnavailable, fmt.Sprintf(format, args...))
}

// precheck returns why kernel tracing cannot work here before trying:
// no BTF. Privileges are left to the kernel, which knows the capabilities
// (reason turns its refusal into "not root").
func precheck(stat func(string) (os.FileInfo, error)) error {
	if _, err := stat(btfPath); err != nil {
		return unavailable("no BTF at %s (a kernel built without CONFIG_DEBUG_INFO_BTF): %v", btfPath, errors.Unwrap(err))
	}
	return nil
}

// reason says in one line why the kernel did not take a program or map,
// for a process with effective uid euid.
func reason(err error, euid int) string {
	var ve *ebpf.VerifierError
	switch {
	case errors.As(err, &ve):
		return fmt.Sprintf("the kernel's verifier refused it: %v", ve)
	case errors.Is(err, unix.EPERM) && euid != 0:
		return fmt.Sprintf("not root (uid %d): loading kernel programs needs root, or CAP_BPF and CAP_PERFMON", euid)
	case errors.Is(err, unix.EPERM):
		return fmt.Sprintf("not permitted although root (a locked-down kernel, or a security module): %v", err)
	case errors.Is(err, ebpf.ErrNotSupported):
		return fmt.Sprintf("not supported by this kernel: %v", err)
	}
	return err.Error()
}
