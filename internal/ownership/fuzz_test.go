package ownership

import (
	"bytes"
	"runtime"
	"testing"
)

// FuzzClassify: any frame classifies without panicking, the same way
// twice, never as user code when its name has control bytes; charging and
// runtime work over it do not panic either; Stable is idempotent, and so
// is cutting a Go function's closures off for the measuring rule.
func FuzzClassify(f *testing.F) {
	for _, s := range [][3]string{
		{"main.handler", "/src/app/main.go", "/srv/app"},
		{"slices.SortStableFunc[go.shape.[]internal/fmtsort.KeyValue]", "", ""},
		{"google.golang.org/protobuf/proto.Marshal", "/root/go/pkg/mod/google.golang.org/protobuf@v1.36.12/proto/encode.go", ""},
		{"<regex_syntax::utf8::Utf8Sequences as core::iter::traits::iterator::Iterator>::next", "/x/rxsvc", "/x/rxsvc"},
		{"_RINvMNtCsgEmfK2I1SDS_4core3stre12trim_matchesNvMNtNtB5_4char7methodsc13is_whitespaceECsjrHSEGnQ3l9_3std", "", "/x/rxsvc"},
		{"java.lang.Object Server$$Lambda$1/0x00007f602c000a08.apply(java.lang.Object)", "/tmp/perf-1.map", "/tmp/perf-1.map"},
		{"JS:*summarize /srv/app.js:2:19", "/tmp/perf-2.map", "/tmp/perf-2.map"},
		{"Thread._bootstrap", "/usr/lib/python3.11/threading.py", ""},
		{"parse_query", "/usr/share/rubygems-integration/all/gems/rack-2.2.22/lib/rack/query_parser.rb", ""},
		{"evil\x00name", "/srv/app/app.py", ""},
		{"<", "<", "<"},
		{"[c function] x", "", ""},
		{"runtime/pprof.Do.func1.2", "/usr/lib/go/src/runtime/pprof/runtime.go", ""},
		{"runtime.(*traceMap).put", "", ""},
	} {
		f.Add(s[0], s[1], s[2])
	}
	m := mustNew(f, Spec{Runtime: LangGo, Root: "/srv/app", Modules: []Module{{Lang: LangGo, Path: "example.com/app", User: true}, {Lang: LangRust, Path: "regex-automata", Version: "0.4.9"}}, JVMPackages: []string{"com.acme"}})
	f.Fuzz(func(t *testing.T, name, file, bin string) {
		fr := Frame{Func: name, File: file, Binary: bin}
		for _, model := range []*Model{m, nil, {}} {
			a, b := model.Classify(fr), model.Classify(fr)
			if a != b {
				t.Fatalf("%+v classified %+v then %+v", fr, a, b)
			}
			if hasControl(name) && a.Kind == User {
				t.Fatalf("%q with control bytes classified as user code", name)
			}
			_ = model.Charge([]Frame{fr, fr})
			_ = model.Work([]Frame{fr}, name)
		}
		if s := Stable(name); Stable(s) != s {
			t.Fatalf("Stable(%q) = %q, Stable of that %q", name, s, Stable(s))
		}
		if b := goFuncBase(name); goFuncBase(b) != b || len(b) > len(name) {
			t.Fatalf("goFuncBase(%q) = %q, of that %q", name, b, goFuncBase(b))
		}
		_ = IsGoMeasuring(name)
	})
}

// FuzzInspectBinary: hostile ELF files yield an error or a description,
// never a panic, and reads stay bounded.
func FuzzInspectBinary(f *testing.F) {
	f.Add([]byte("\x7fELF"))
	f.Fuzz(func(t *testing.T, data []byte) {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, _, _ = inspect(bytes.NewReader(data), "fuzz")
		runtime.ReadMemStats(&after)
		if grew := after.TotalAlloc - before.TotalAlloc; grew > 256<<20 {
			t.Fatalf("%d MiB allocated reading %d bytes", grew>>20, len(data))
		}
	})
}

// FuzzParseCargoLock: any text parses without panicking into crates with
// names.
func FuzzParseCargoLock(f *testing.F) {
	f.Add([]byte("version = 4\n\n[[package]]\nname = \"regex\"\nversion = \"1.11.1\"\nsource = \"registry+https://github.com/rust-lang/crates.io-index\"\n\n[[package]]\nname = \"app\"\nversion = \"0.1.0\"\n"))
	f.Add([]byte("[[package]]\nname = \"\nversion\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, m := range ParseCargoLock(data) {
			if m.Path == "" || m.Lang != LangRust {
				t.Fatalf("crate %+v", m)
			}
		}
	})
}
