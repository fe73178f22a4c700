package capture

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"testing"

	"perflab/internal/labtest"
)

const kallsymsSample = `ffffffff81000000 T _stext
ffffffff81000000 T _text
ffffffff81001000 t xen_hypercall_page
ffffffff82209988 T _etext
ffffffffc0a01000 t nf_conntrack_init [nf_conntrack]
`

func TestKernelBounds(t *testing.T) {
	got, err := kernelBounds(strings.NewReader(kallsymsSample))
	if err != nil {
		t.Fatal(err)
	}
	want := "ffffffff81000000 T _stext\nffffffff81000000 T _text\nffffffff82209988 T _etext\n"
	if string(got) != want {
		t.Errorf("kernelBounds = %q, want %q", got, want)
	}
	// Hidden addresses (kptr_restrict) read 0: perf must read the table.
	hidden := "0000000000000000 T _stext\n0000000000000000 T _text\n0000000000000000 T _etext\n"
	if _, err := kernelBounds(strings.NewReader(hidden)); err == nil {
		t.Error("kernelBounds accepted a table with hidden addresses")
	}
	if _, err := kernelBounds(strings.NewReader("ffffffff81000000 T _text\n")); err == nil {
		t.Error("kernelBounds accepted a table without _etext")
	}
}

func FuzzKernelBounds(f *testing.F) {
	f.Add([]byte(kallsymsSample))
	f.Add([]byte("0 T _text\n0 T _stext\n0 T _etext\n"))
	f.Add([]byte(""))
	f.Fuzz(func(t *testing.T, b []byte) {
		out, err := kernelBounds(bytes.NewReader(b))
		if err == nil && len(strings.Split(strings.TrimSpace(string(out)), "\n")) != len(kernelBoundSymbols) {
			t.Errorf("kernelBounds = %q: not one line per symbol", out)
		}
	})
}

// TestPerfCommandKallsyms: the command perf runs in sees the kernel's
// bounds as /proc/kallsyms, and the machine's table is left as it was.
func TestPerfCommandKallsyms(t *testing.T) {
	labtest.RequireRoot(t, "a mount namespace")
	cat := labtest.NeedTool(t, "cat", "")
	name, args := perfCommand(cat, []string{"/proc/kallsyms"})
	if name == cat {
		t.Skip("perf runs without the bounds file here (no unshare, mount or sh, or no mount namespace allowed)")
	}
	out, err := exec.Command(name, args...).Output()
	if err != nil {
		t.Fatalf("%s %q: %v", name, args, err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != len(kernelBoundSymbols) || !strings.HasSuffix(lines[0], " _stext") && !strings.HasSuffix(lines[0], " _text") {
		t.Errorf("the command read as /proc/kallsyms:\n%s", out)
	}
	host, err := os.ReadFile("/proc/kallsyms")
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Count(host, []byte("\n")) < 1000 {
		t.Errorf("/proc/kallsyms outside the command has %d lines", bytes.Count(host, []byte("\n")))
	}
}
