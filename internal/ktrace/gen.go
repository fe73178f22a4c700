package ktrace

// The kernel programs (bpf/ktrace.bpf.c) are compiled by bpf2go into
// ktrace_x86_bpfel.o, embedded by ktrace_x86_bpfel.go; both are committed,
// so building perflab needs no C compiler. To change the programs, on a
// Linux machine with BTF (/sys/kernel/btf/vmlinux), clang and bpftool
// (Debian: apt install clang llvm libbpf-dev bpftool), run
//
//	go generate ./internal/ktrace
//
// The first step writes bpf/vmlinux.h, the kernel's types (not committed:
// the object carries CO-RE relocations, resolved against the running
// kernel's BTF when it loads); the second compiles and embeds the object.
//
//go:generate sh -c "bpftool btf dump file /sys/kernel/btf/vmlinux format c > bpf/vmlinux.h"
//go:generate go run github.com/cilium/ebpf/cmd/bpf2go@v0.22.0 -cc clang -cflags "-O2 -g -Wall -Werror -mcpu=v3" -target amd64 -go-package ktrace ktrace bpf/ktrace.bpf.c -- -I./bpf
