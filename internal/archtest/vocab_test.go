package archtest

import (
	"go/ast"
	"go/token"
	"slices"
	"strconv"
	"strings"
	"testing"

	"perflab/internal/runfmt"
)

// vocabularies are the words of each closed vocabulary, from runfmt's own
// lists: they are written as string literals in runfmt only, and used
// everywhere else by their constants.
func vocabularies() map[string][]string {
	return map[string][]string{
		"kind of wall time": runfmt.Words(runfmt.TimeKinds()),
		"wait":              runfmt.Words(runfmt.Waits()),
		"profile type":      runfmt.Words(runfmt.ProfileTypes()),
		"time source":       runfmt.Words(runfmt.TimeSources()),
		"profiler":          runfmt.Words(runfmt.Profilers()),
		"runtime":           runfmt.Words(runfmt.Runtimes()),
		"finding kind":      runfmt.Words(runfmt.FindingKinds()),
		"stack source":      runfmt.Words(runfmt.StackSources()),
	}
}

// otherMeanings are the literals outside runfmt that spell a vocabulary's
// word with another meaning: file (from the module root), the words, why.
// A word used in several places of a package gets a named constant there
// and one entry here.
var otherMeanings = []struct{ file, words, why string }{
	{"internal/analysis/user.go", "encoding go regexp sync syscall", "paths of Go's standard library"},
	{"internal/capture/endpoint.go", "allocs block goroutine heap mutex trace", "net/http/pprof's endpoints (capture.Endpoint) and sample types"},
	{"internal/capture/perf.go", "sleep", "the command perf record runs for the window"},
	{"internal/capture/snapshotgroup.go", "running runnable sleep syscall", "the Go runtime's goroutine states in a goroutine dump"},
	{"internal/capture/snapshotkernel.go", "running syscall", "/proc/PID/task/TID/syscall's file name and its word for a running thread"},
	{"internal/capture/snapshotpy.go", "idle", "py-spy dump's state of a thread that waits"},
	{"internal/capture/snapshottool.go", "jcmd", "the JDK's jcmd command"},
	{"internal/cli/benchcmd.go", "cpu regexp", "go test's -cpu flag and the -bench flag's placeholder"},
	{"internal/gobench/binary.go", "go", "the go command"},
	{"internal/gobench/parse.go", "cpu", "the cpu: line of go test's benchmark output"},
	{"internal/gobench/side.go", "cpu", "the cpu: line of go test's benchmark output"},
	{"internal/report/benchmd.go", "allocs", "a table's column of allocations"},
	{"internal/demo/tail.go", "other", "a log level of the demo service"},
	{"internal/labtest/labtest.go", "go", "the go command"},
	{"internal/load/errors.go", "other", "a load error's kind"},
	{"internal/profiling/perfmap.go", "jcmd", "the JDK's jcmd command"},
	{"internal/report/htmlcharts.go", "cpu", "the HTML id of the CPU chart"},
	{"internal/report/htmllinks.go", "cpu", "a word looked for in a degraded run's reasons"},
	{"internal/target/cgroup_layout.go", "cpu", "the cgroup controller"},
	{"internal/target/hoststat.go", "cpu", "/proc/stat's label of CPU time"},
	{"internal/target/runtime.go", "node python ruby", "interpreters' executable names"},
	{"internal/walltime/classify.go", "network sleep", "the Go runtime's block reasons in an execution trace"},
}

// TestVocabularyWordsOnlyInRunfmt: a string literal outside runfmt that is
// a word of a vocabulary is a copy of runfmt's declaration (a typo there
// would compile); use the constant. Each entry of otherMeanings must still
// be needed.
func TestVocabularyWordsOnlyInRunfmt(t *testing.T) {
	vocab := map[string][]string{}
	for name, ws := range vocabularies() {
		if len(ws) == 0 {
			t.Fatalf("runfmt lists no %s words", name)
		}
		for _, w := range ws {
			vocab[w] = append(vocab[w], name)
		}
	}
	used := map[string]bool{}
	checked := 0
	for _, f := range goFiles(t) {
		file := strings.TrimPrefix(f.path, "../../")
		if !strings.HasPrefix(file, "internal/") && !strings.HasPrefix(file, "cmd/") || strings.HasPrefix(file, "internal/runfmt/") {
			continue
		}
		checked++
		stringLiterals(f.ast, func(s string, pos token.Pos) {
			names, ok := vocab[s]
			if !ok {
				return
			}
			if key, ok := otherMeaning(file, s); ok {
				used[key] = true
				return
			}
			slices.Sort(names)
			t.Errorf("%s: %q is a %s word, declared in runfmt: use its constant (or, if it means something else here, add it to otherMeanings)",
				f.at(pos), s, strings.Join(names, " and "))
		})
	}
	if checked < 100 {
		t.Fatalf("checked %d files; want perflab's hundreds", checked)
	}
	for _, o := range otherMeanings {
		for w := range strings.FieldsSeq(o.words) {
			if !used[o.file+" "+w] {
				t.Errorf("otherMeanings lists %q in %s, which no longer has it: remove it", w, o.file)
			}
		}
	}
}

func otherMeaning(file, word string) (string, bool) {
	for _, o := range otherMeanings {
		if o.file == file && slices.Contains(strings.Fields(o.words), word) {
			return file + " " + word, true
		}
	}
	return "", false
}

// stringLiterals calls fn with the value of every string literal of f but
// its import paths.
func stringLiterals(f *ast.File, fn func(s string, pos token.Pos)) {
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.ImportSpec:
			return false
		case *ast.BasicLit:
			if n.Kind == token.STRING {
				if s, err := strconv.Unquote(n.Value); err == nil {
					fn(s, n.Pos())
				}
			}
		}
		return true
	})
}
