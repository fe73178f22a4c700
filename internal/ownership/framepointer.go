package ownership

import (
	"bytes"
	"debug/elf"
)

// Frame pointers, a heuristic: perf walks stacks by frame pointers, and a
// function compiled without them breaks the walk at its frame. On x86-64 a
// function keeping one starts by saving and setting %rbp: push %rbp (0x55,
// after an optional endbr64) as its first instruction and mov %rsp,%rbp
// (48 89 e5) within the next bytes (compilers may schedule an instruction
// between them). Without frame pointers %rbp is an ordinary callee-saved
// register and is rarely pushed first. The share of sampled functions of
// at least 16 bytes that start so gives the verdict: at least 70% yes,
// under 40% no, partial between (a binary that mixes code built both
// ways). Other architectures are not judged.

var (
	endbr64   = []byte{0xf3, 0x0f, 0x1e, 0xfa}
	movRspRbp = []byte{0x48, 0x89, 0xe5}
)

// crtFuncs are the C start-up functions every executable links, which
// tell nothing of how the program was built.
var crtFuncs = map[string]bool{
	"_start": true, "_init": true, "_fini": true, "deregister_tm_clones": true, "register_tm_clones": true,
	"__do_global_dtors_aux": true, "frame_dummy": true, "__libc_csu_init": true, "__libc_csu_fini": true,
}

// framePointers judges whether ef's functions set up frame pointers.
func framePointers(ef *elf.File, syms []elf.Symbol) (string, float64) {
	if ef.Machine != elf.EM_X86_64 {
		return FramePointersUnknown, 0
	}
	var cand []elf.Symbol
	for _, s := range syms {
		if s.Size >= 16 && !crtFuncs[s.Name] {
			cand = append(cand, s)
		}
	}
	if len(cand) < fpMinFuncs {
		return FramePointersUnknown, 0
	}
	step := max(1, len(cand)/fpSampleFuncs)
	buf := make([]byte, 16)
	n, fp := 0, 0
	for i := 0; i < len(cand); i += step {
		s := cand[i]
		if !readCode(ef, s.Value, buf) {
			continue
		}
		n++
		if setsFramePointer(buf) {
			fp++
		}
	}
	if n < fpMinFuncs {
		return FramePointersUnknown, 0
	}
	share := float64(fp) / float64(n)
	switch {
	case share >= 0.7:
		return FramePointersYes, share
	case share < 0.4:
		return FramePointersNo, share
	}
	return FramePointersPartial, share
}

// setsFramePointer reports whether code starts as a frame-pointer
// prologue does.
func setsFramePointer(code []byte) bool {
	code = bytes.TrimPrefix(code, endbr64)
	if len(code) == 0 || code[0] != 0x55 {
		return false
	}
	return bytes.Contains(code[1:], movRspRbp)
}

// readCode reads len(buf) bytes at virtual address addr from the
// executable section holding them.
func readCode(ef *elf.File, addr uint64, buf []byte) bool {
	for _, s := range ef.Sections {
		if s.Flags&elf.SHF_EXECINSTR == 0 || s.Type != elf.SHT_PROGBITS || addr < s.Addr || addr+uint64(len(buf)) > s.Addr+s.Size {
			continue
		}
		n, err := s.ReadAt(buf, int64(addr-s.Addr))
		return err == nil && n == len(buf)
	}
	return false
}
