package capture

import (
	"strings"
	"testing"
)

// TestAsyncLeafInterpreted: the Java frame nearest the leaf decides,
// passing over the JVM's own frames and the kernel's under them; another
// library's code, or a system call straight from the method, is not the
// interpreter's. Each case is a stack, root first, in the annotations of
// async-profiler's collapsed output (a native frame's library before a
// backquote).
func TestAsyncLeafInterpreted(t *testing.T) {
	for stack, want := range map[string]bool{
		"Server.main_[0];Server.run_[0]":                                      true,
		"Server.main_[0];libjvm.so`InterpreterRuntime::new;do_syscall_64_[k]": true,
		"Server.main_[0];Server.run_[j]":                                      false,
		"Server.main_[0];Server.run_[1];java.lang.Math.max_[i]":               false,
		"libjvm.so`Compile::Compile":                                          false,
		"Server.main_[0];I2C/C2I adapters":                                    true,
		"Server.main_[0];libnio.so`Java_sun_nio_ch_Net_accept;accept_[k]":     false,
		"Server.main_[0];libc.so.6`memcpy":                                    false,
		"Server.main_[0];do_syscall_64_[k]":                                   false,
	} {
		names := strings.Split(stack, ";")
		frames := make([]asyncKind, len(names))
		for i, n := range names {
			k := &frames[len(names)-1-i]
			if j := strings.LastIndex(n, "_["); j >= 0 {
				k.code, n = n[j+2:len(n)-1], n[:j]
			}
			if lib, _, ok := strings.Cut(n, "`"); ok {
				k.lib = lib
			}
		}
		if got := leafInterpreted(frames); got != want {
			t.Errorf("%q: interpreted %v, want %v", stack, got, want)
		}
	}
}
