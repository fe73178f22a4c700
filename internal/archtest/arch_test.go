// Package archtest checks perflab's package structure: which internal
// packages may import which (imports point one way, see
// docs/architecture.md), that only cmd/ and cli end the process or use its streams, that
// outputs are written atomically, that the words of each vocabulary
// are written in runfmt only, and that run.json holds words only in its
// notes, which no package reads back (prose_test.go, runjson_test.go).
// The checks read the Go files themselves (go/parser, go/types), and fail
// when they cannot.
package archtest

import (
	"go/token"
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// allowed lists, per internal package, the internal packages it may import.
// A package missing here may import none.
var allowed = map[string][]string{
	"cli":      {"lab", "load", "service", "capture", "profview", "stats", "runfmt", "store", "report", "compare", "demo", "ui", "revision", "files", "units", "gobench"},
	"gobench":  {"analysis", "stats", "runfmt", "store", "revision", "files", "units"},
	"ui":       {"compare", "report", "analysis", "stacks", "runfmt", "store", "files", "units"},
	"lab":      {"session", "findmax", "batch", "pgo", "decide", "revision", "runfmt", "units"},
	"revision": {"files"},
	"compare":  {"analysis", "ownership", "stacks", "stats", "runfmt", "store", "files", "units"},
	// profview computes the views of a stored profile (top, list, flame,
	// exports) for the commands that print them.
	"profview": {"analysis", "stacks", "walltime", "capture", "runfmt", "store", "files"},
	// report renders what it is handed and computes nothing: no profile,
	// rule or statistic (analysis, findings, stats, profiling, capture,
	// stacks, ledger, ownership), only the words and units of what the
	// run holds, highlighting a figure from answer's level of it (the
	// level the rules apply, defined once).
	"report":   {"runfmt", "files", "units", "funcname", "prose"},
	"store":    {"runfmt", "files"},
	"load":     {"runfmt", "files"},
	"service":  {"runfmt", "answer", "units"},
	"capture":  {"runfmt", "files", "units"},
	"findings": {"analysis", "stacks", "ownership", "runfmt", "answer", "units"},
	"analysis": {"stacks", "ownership", "runfmt", "files", "units", "funcname"},
	"stacks":   {"runfmt", "files", "funcname"},
	"walltime": {"runfmt"},
	"stats":    {"runfmt"},
	"runfmt":   {"files"},
	"files":    {},
	"units":    {},
	"funcname": {},
	"prose":    {"runfmt", "units", "funcname"},
	"demo":     {"pprofmux"},
	"pprofmux": {},
	"labtest":  {"runfmt"},
	"ktrace":   {"runfmt", "files"},
	"ledger":   {"runfmt", "units"},
	"answer":   {"runfmt"},

	"profiling": {"capture", "service", "runfmt", "files", "ownership", "units"},
	"ownership": {"runfmt", "files", "units", "prose"},

	// The stages of a run between lab and the leaves. session is one run
	// of a service while it happens: prepare, start or attach, warm,
	// measure, collect, save and render.
	"session": {"analysis", "capture", "decide", "files", "load", "ownership", "profiling", "prose", "report", "revision", "runfmt", "store", "stuck", "service", "units", "window"},
	// batch runs a batch program to its exit, on session's prepare and
	// save, with its own decide stage.
	"batch": {"session", "decide", "analysis", "capture", "files", "findings", "ktrace", "ownership", "report", "runfmt", "service"},
	// pgo merges runs' CPU profiles for go build -pgo.
	"pgo": {"session", "files", "report", "runfmt", "stacks", "service"},
	// findmax is find-max's measure stage, on a session.
	"findmax": {"session", "decide", "report", "runfmt", "service", "units"},
	// decide computes a run's figures from what it measured: the summary,
	// the ledger, the time split, the findings and the answer.
	"decide": {"analysis", "answer", "capture", "findings", "ktrace", "ledger", "ownership", "profiling", "report", "runfmt", "service", "units", "walltime"},
	// stuck reads every thread's stack of a service whose requests
	// stopped finishing.
	"stuck": {"analysis", "capture", "load", "profiling", "prose", "runfmt", "service", "units"},
	// window measures the service beside the load over the window: the
	// kernel's timing, the connections, the peers.
	"window": {"ktrace", "ledger", "load", "service", "units"},
}

// commands are the programs outside internal/ and the one internal
// package each goes through: perflab's CLI, and the README's example
// service, which is the demo's.
var commands = map[string]string{"perflab/cmd/perflab": "cli", "perflab/examples/server": "demo"}

func TestImportsPointOneWay(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", "perflab/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		pkg, imports := fields[0], fields[1:]
		name, internal := strings.CutPrefix(pkg, "perflab/internal/")
		for _, imp := range imports {
			dep, ok := strings.CutPrefix(imp, "perflab/internal/")
			switch {
			case !ok:
				continue
			case dep == "labtest":
				t.Errorf("%s imports labtest outside its tests", pkg)
			case !internal:
				if commands[pkg] != dep {
					t.Errorf("%s imports %s: commands go through internal/cli", pkg, imp)
				}
			case !contains(allowed[name], dep):
				t.Errorf("%s imports %s, which it may not (allowed: %v)", pkg, imp, allowed[name])
			}
		}
	}
}

func TestOnlyCommandsExitOrPrint(t *testing.T) {
	for _, f := range goFiles(t) {
		if !strings.HasPrefix(f.path, "../../internal/") || strings.HasPrefix(f.path, "../../internal/cli/") {
			continue
		}
		f.selectors(func(pkg, name string, pos token.Pos) {
			if pkg == "os" && (name == "Exit" || name == "Stdout" || name == "Stderr") {
				t.Errorf("only cmd/ and internal/cli may exit or use the process's streams: %s: os.%s", f.at(pos), name)
			}
		})
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// writers may create or write files directly; everything else writes its
// outputs through package files (temporary file, synced, renamed into
// place), so a failed write never destroys what was there and every write
// error is checked in one place.
var writers = map[string]string{
	"../../internal/files/":               "the atomic writer itself",
	"../../internal/service/cgroup.go":    "cgroup control files, not outputs",
	"../../internal/service/cleanup.go":   "cgroup control files (cgroup.kill), not outputs",
	"../../internal/service/logsink.go":   "the service's bounded log, written in place in perflab's own run directory",
	"../../internal/capture/jvmattach.go": "the empty file a JVM looks for to open its attach socket, removed again: not an output",
	"../../internal/labtest/golden.go":    "tests' golden files, rewritten under -update",
	"../../internal/labtest/fit.go":       "tests' screenshots and printouts, in their artifact directories",
	"../../bench/":                        "benchmark generators",
}

// openFlags are the os.OpenFile flags that create or write a file.
var openFlags = regexp.MustCompile(`^O_(CREATE|WRONLY|RDWR|TRUNC|APPEND)$`)

func TestOutputsAreWrittenAtomically(t *testing.T) {
	for _, f := range goFiles(t) {
		allowed := false
		for prefix := range writers {
			allowed = allowed || strings.HasPrefix(f.path, prefix)
		}
		if allowed {
			continue
		}
		f.selectors(func(pkg, name string, pos token.Pos) {
			if pkg == "os" && (name == "Create" || name == "WriteFile") || openFlags.MatchString(name) {
				t.Errorf("write outputs through package files (WriteAtomic, WriteFile): %s: %s.%s", f.at(pos), pkg, name)
			}
		})
	}
}
