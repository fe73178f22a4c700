package findings

import (
	"cmp"
	"slices"
	"strings"
	"testing"

	"github.com/google/pprof/profile"

	"perflab/internal/analysis"
	"perflab/internal/labtest"
	"perflab/internal/ownership"
	"perflab/internal/prose"
	"perflab/internal/runfmt"
)

// withFiles sets the files of a profile's functions by name ("" for a
// name files does not hold); nil leaves them as they are.
func withFiles(p *profile.Profile, files map[string]string) *profile.Profile {
	if files == nil {
		return p
	}
	for _, fn := range p.Function {
		fn.Filename = files[fn.Name]
	}
	return p
}

// gzipInput is a gzip middleware that makes a new gzip.Writer per
// response: its first Write builds a flate compressor (40% of the CPU,
// 800 KiB allocated per request), its Close compresses (30%).
func gzipInput(t *testing.T) FindingInput {
	cpu := labtest.NewProfile(t, "cpu/nanoseconds").
		Add("main.mw.func1;main.api;main.(*gzipWriter).Write;compress/gzip.(*Writer).Write;compress/flate.NewWriter;runtime.memclrNoHeapPointers", 38e6).
		Add("main.mw.func1;main.api;main.(*gzipWriter).Write;compress/gzip.(*Writer).Write;compress/flate.NewWriter;compress/flate.(*compressor).init", 2e6).
		Add("main.mw.func1;main.api;main.(*gzipWriter).Write;compress/gzip.(*Writer).Write;compress/flate.(*compressor).write", 1e6).
		Add("main.mw.func1;compress/gzip.(*Writer).Close;compress/flate.(*compressor).close", 30e6).
		Add("main.mw.func1;main.api;encoding/json.Marshal", 29e6).
		Profile()
	allocs := labtest.NewProfile(t, "alloc_objects/count", "alloc_space/bytes").
		Add("main.mw.func1;main.api;main.(*gzipWriter).Write;compress/gzip.(*Writer).Write;compress/flate.NewWriter;runtime.mallocgc", 400, 800<<20).
		Add("main.mw.func1;compress/gzip.NewWriter;runtime.mallocgc", 1000, 200e3).
		Profile()
	return FindingInput{CPU: cpu, Allocs: allocs, Requests: 1000, Target: &runfmt.TargetSummary{CPUMsPerRequest: 0.1}}
}

// TestConstructorPerRequest: a constructor that holds most of a
// category's cost under a user function is named as such, with the
// library method that runs it, its allocations and the advice to build
// once; the category finding it held is gone, the others stay, and
// every stack is counted by one finding.
func TestConstructorPerRequest(t *testing.T) {
	fs := Findings(gzipInput(t))
	cs := findKind(fs, runfmt.FindingConstructor)
	if len(cs) != 1 {
		t.Fatalf("constructor findings %+v; want one", cs)
	}
	f := cs[0]
	if c, _ := f.Culprit(); c.Function != "main.(*gzipWriter).Write" {
		t.Errorf("culprit %s; want main.(*gzipWriter).Write", c.Function)
	}
	if e := ctorEntry(&f); e.Function != "compress/flate.NewWriter" {
		t.Errorf("constructor %s; want compress/flate.NewWriter", e.Function)
	}
	if lib := withRole(&f, runfmt.RoleLibrary); len(lib) != 1 || lib[0].Function != "compress/gzip.(*Writer).Write" {
		t.Errorf("library call %+v; want compress/gzip.(*Writer).Write", lib)
	}
	if got := f.Figures[runfmt.FigShare]; got != 0.4 {
		t.Errorf("share %v; want 0.4", got)
	}
	if got, want := f.Figures[runfmt.FigBytesPerRequest], float64(800<<20)/1000; got != want {
		t.Errorf("bytes per request %v; want %v", got, want)
	}
	w := prose.Wording(&f)
	for _, want := range []string{"compress/flate.NewWriter built on every request under main.(*gzipWriter).Write", "Build it once", "sync.Pool", "Reset"} {
		if !strings.Contains(w.Title.Text()+" "+w.Detail.Text(), want) {
			t.Errorf("words %q / %q; want %q", w.Title.Text(), w.Detail.Text(), want)
		}
	}
	for _, o := range fs {
		if c, _ := o.Culprit(); o.Kind != runfmt.FindingConstructor && c.Function == "main.(*gzipWriter).Write" {
			t.Errorf("findings %s; want main.(*gzipWriter).Write's cost named by the constructor's finding only", describe(fs))
		}
	}
	if !slices.ContainsFunc(fs, func(o runfmt.Finding) bool { return slices.Contains(o.Names(), "compress/gzip.(*Writer).Close") }) {
		t.Errorf("findings %s; want the compression in Close named still", describe(fs))
	}
	if fs[0].Kind != runfmt.FindingConstructor {
		t.Errorf("first finding %s; want the constructor (its 40%% is the costliest)", describe(fs[:1]))
	}
	if got := f.Figures[runfmt.FigExclusiveCPU]; got != f.Figures[runfmt.FigCPUPerRequest] {
		t.Errorf("exclusive CPU %v of %v; want all of it", got, f.Figures[runfmt.FigCPUPerRequest])
	}
}

// describe lists findings' kinds and names for a failure message.
func describe(fs []runfmt.Finding) string {
	var b strings.Builder
	for _, f := range fs {
		b.WriteString("\n  [" + string(f.Kind) + "] " + strings.Join(f.Names(), ", "))
	}
	return b.String()
}

// TestConstructorShapes: the rule reads the shape of the code in every
// runtime's frames: the JVM's Pattern.compile under a user method, a Go
// function that compiles its pattern on every call, Python's re.compile
// and a Rust Regex::new; the use of a built object, a value's
// constructor and a cheap constructor beside a costly use are not
// named.
func TestConstructorShapes(t *testing.T) {
	for _, c := range []struct {
		name     string
		stacks   [][2]string // stack, then its cost in ms
		files    map[string]string
		runtime  runfmt.Runtime
		lang     string // the ownership model's runtime, when not runtime's
		modules  []ownership.Module
		ctor     string // "" for none
		user     string
		advice   string
		replaced runfmt.FindingKind
	}{
		{name: "jvm-pattern-compile",
			stacks: [][2]string{
				{"Server.lambda$main$0;Server.summarize;java.util.regex.Pattern.compile;java.util.regex.Pattern.<init>;java.util.regex.Pattern.expr", "70"},
				{"Server.lambda$main$0;Server.summarize;java.util.regex.Pattern.compile;java.util.regex.Pattern.<init>", "10"},
				{"Server.lambda$main$0;Server.summarize;java.util.regex.Matcher.find", "4"},
				{"Server.lambda$main$0;com.sun.net.httpserver.HttpExchange.sendResponseHeaders", "16"},
			},
			files:   map[string]string{"Server.lambda$main$0": "Server.java", "Server.summarize": "Server.java"},
			runtime: runfmt.RuntimeJVM, ctor: "java.util.regex.Pattern.compile", user: "Server.summarize", advice: "static final", replaced: runfmt.FindingHotUserFunction},
		{name: "go-match-string",
			stacks: [][2]string{
				{"main.handler;main.valid;regexp.MatchString;regexp.Compile;regexp.compile;regexp/syntax.Parse", "60"},
				{"main.handler;main.valid;regexp.MatchString;regexp.(*Regexp).doExecute", "10"},
				{"main.handler;main.render", "30"},
			},
			ctor: "regexp.Compile", user: "main.valid", advice: "sync.Pool", replaced: runfmt.FindingRegexp},
		{name: "python-re-compile",
			stacks: [][2]string{
				{"handle;check;compile;_compile;compile@c;_code", "55"},
				{"handle;render", "45"},
			},
			files: map[string]string{"handle": "/app/app.py", "check": "/app/app.py", "render": "/app/app.py",
				"compile": "/usr/lib/python3.12/re/__init__.py", "_compile": "/usr/lib/python3.12/re/__init__.py",
				"compile@c": "/usr/lib/python3.12/re/_compiler.py", "_code": "/usr/lib/python3.12/re/_compiler.py"},
			runtime: runfmt.RuntimePython, ctor: "compile", user: "check", advice: "module level"},
		{name: "rust-regex-new",
			stacks: [][2]string{
				{"axumapp::main;axumapp::summarize;regex::regex::string::Regex::new::h0123456789abcdef;regex_automata::meta::regex::Builder::build", "80"},
				{"axumapp::main;axumapp::render", "20"},
			},
			files:   map[string]string{"axumapp::main": "/app/src/main.rs", "axumapp::summarize": "/app/src/main.rs", "axumapp::render": "/app/src/main.rs"},
			modules: []ownership.Module{{Lang: ownership.LangRust, Path: "axumapp", User: true}, {Lang: ownership.LangRust, Path: "regex"}, {Lang: ownership.LangRust, Path: "regex-automata"}},
			runtime: runfmt.RuntimeNative, lang: ownership.LangRust, ctor: "regex::regex::string::Regex::new::h0123456789abcdef", user: "axumapp::summarize", advice: "LazyLock"},
		{name: "go-use-not-constructor",
			stacks: [][2]string{
				{"main.handler;main.match;regexp.(*Regexp).MatchString;regexp.(*Regexp).doExecute", "70"},
				{"main.handler;main.match;encoding/json.NewEncoder", "1"},
				{"main.handler;main.render", "29"},
			}},
		{name: "go-split-not-constructor",
			stacks: [][2]string{
				{"main.handler;main.columnTotal;strings.Split;strings.genSplit;runtime.makeslice", "90"},
				{"main.handler;main.parseScale;fmt.Errorf;errors.New", "10"},
			}},
		{name: "jvm-string-value",
			stacks: [][2]string{
				{"Server.handle;java.lang.String.<init>;java.lang.StringCoding.decode", "80"},
				{"Server.handle;Server.render", "20"},
			},
			files: map[string]string{"Server.handle": "Server.java", "Server.render": "Server.java"}, runtime: runfmt.RuntimeJVM},
		{name: "cheap-constructor-costly-use",
			stacks: [][2]string{
				{"main.handler;main.encode;encoding/json.NewEncoder;runtime.newobject", "3"},
				{"main.handler;main.encode;encoding/json.(*Encoder).Encode;encoding/json.(*encodeState).marshal", "67"},
				{"main.handler;main.render", "30"},
			}},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := labtest.NewProfile(t, "cpu/nanoseconds")
			for _, s := range c.stacks {
				ms := int64(0)
				for _, ch := range s[1] {
					ms = ms*10 + int64(ch-'0')
				}
				b.Add(s[0], ms*1e6)
			}
			p := withFiles(b.Profile(), c.files)
			for _, fn := range p.Function {
				fn.Name, _, _ = strings.Cut(fn.Name, "@") // two functions of one name in two files
			}
			lang := cmp.Or(c.lang, string(c.runtime))
			m, err := ownership.New(ownership.Spec{Runtime: lang, Modules: c.modules})
			if err != nil {
				t.Fatal(err)
			}
			fs := Findings(FindingInput{CPU: p, Requests: 100, Runtime: c.runtime, UserCode: analysis.UserCode{Model: m},
				Target: &runfmt.TargetSummary{CPUMsPerRequest: 1}})
			cs := findKind(fs, runfmt.FindingConstructor)
			if c.ctor == "" {
				if len(cs) > 0 {
					t.Fatalf("constructor findings %s; want none", describe(cs))
				}
				return
			}
			if len(cs) != 1 {
				t.Fatalf("constructor findings %s; want one (all findings: %s)", describe(cs), describe(fs))
			}
			f := cs[0]
			if cu, _ := f.Culprit(); cu.Function != c.user || ctorEntry(&f).Function != c.ctor {
				t.Errorf("constructor finding names %v; want %s under %s", f.Names(), c.ctor, c.user)
			}
			if w := prose.Wording(&f); !strings.Contains(w.Detail.Text(), c.advice) {
				t.Errorf("detail %q; want advice with %q", w.Detail.Text(), c.advice)
			}
			if c.replaced != "" {
				for _, r := range findKind(fs, c.replaced) {
					if cu, _ := r.Culprit(); cu.Function == c.user {
						t.Errorf("a %s finding of %s stays beside the constructor's: %s", c.replaced, c.user, describe(fs))
					}
				}
			}
			if fs[0].Kind != runfmt.FindingConstructor {
				t.Errorf("findings %s; want the constructor first", describe(fs))
			}
		})
	}
}

// TestConstructorName: names in every runtime's shape.
func TestConstructorName(t *testing.T) {
	for _, c := range []struct {
		name, file string
		want       bool
	}{
		{"compress/flate.NewWriter", "", true},
		{"compress/gzip.NewWriterLevel", "", true},
		{"regexp.MustCompile", "", true},
		{"text/template.(*Template).Parse", "", true},
		{"html/template.New", "", true},
		{"google.golang.org/grpc.Dial", "", true},
		{"github.com/x/y.New[...]", "", true},
		{"compress/gzip.(*Writer).Write", "", false},
		{"regexp.(*Regexp).MatchString", "", false},
		{"errors.New", "", false},
		{"reflect.New", "", false},
		{"strings.Split", "", false},
		{"net/url.Parse", "", false},
		{"java.util.regex.Pattern.compile", "", true},
		{"java/util/regex/Pattern.compile", "", true},
		{"Ljava/util/regex/Pattern;::compile", "", true},
		{"java.util.regex.Pattern java.util.regex.Pattern.compile(java.lang.String)", "", true},
		{"javax.crypto.Cipher.getInstance", "", true},
		{"javax.xml.parsers.DocumentBuilderFactory.newDocumentBuilder", "", true},
		{"com.fasterxml.jackson.databind.ObjectMapper.<init>", "", true},
		{"java.lang.String.<init>", "", false},
		{"java.util.ArrayList.<init>", "", false},
		{"java.util.zip.Deflater.<init>", "", true},
		{"java.util.regex.Matcher.find", "", false},
		{"__init__", "/venv/lib/python3.12/site-packages/requests/sessions.py", true},
		{"Session.__init__", "/venv/lib/python3.12/site-packages/requests/sessions.py", true},
		{"compile", "/usr/lib/python3.12/re/__init__.py", true},
		{"match", "/usr/lib/python3.12/re/__init__.py", false},
		{"createGzip", "node:zlib", true},
		{"createGzip", "/app/lib.py", false},
		{"RegExpConstructor", "", true},
		{"regex::regex::string::Regex::new::h0123456789abcdef", "", true},
		{"regex::builders::string::RegexBuilder::build", "", true},
		{"operator new(unsigned long)", "", false},
		{"Mash#initialize", "", true},
		{"BaseModel.__init__", "/venv/lib/python3.12/site-packages/pydantic/main.py", false},
		{"Model.__init__", "/venv/lib/python3.12/site-packages/django/db/models/base.py", false},
	} {
		if got := constructorName(c.name, c.file); got != c.want {
			t.Errorf("constructorName(%q, %q) = %t; want %t", c.name, c.file, got, c.want)
		}
	}
}

// TestConstructorCarvesHotFunction: a hot function whose cost is only
// partly its constructor keeps the rest, and its figures no longer count
// the constructor: its share, its own code's, its callees named.
func TestConstructorCarvesHotFunction(t *testing.T) {
	cpu := withFiles(labtest.NewProfile(t, "cpu/nanoseconds").
		Add("Server.handle;Server.summarize;java.util.regex.Pattern.compile;java.util.regex.Pattern.expr", 40e6).
		Add("Server.handle;Server.summarize;java.util.regex.Matcher.find", 30e6).
		Add("Server.handle;Server.reply", 30e6).
		Profile(), map[string]string{"Server.handle": "Server.java", "Server.summarize": "Server.java", "Server.reply": "Server.java"})
	m, err := ownership.New(ownership.Spec{Runtime: ownership.LangJVM})
	if err != nil {
		t.Fatal(err)
	}
	fs := Findings(FindingInput{CPU: cpu, Requests: 100, Runtime: runfmt.RuntimeJVM, UserCode: analysis.UserCode{Model: m},
		Target: &runfmt.TargetSummary{CPUMsPerRequest: 1}})
	if fs[0].Kind != runfmt.FindingConstructor || fs[0].Figures[runfmt.FigShare] != 0.4 {
		t.Fatalf("findings %s; want the constructor's 40%% first", describe(fs))
	}
	for _, f := range findKind(fs, runfmt.FindingHotUserFunction) {
		if c, _ := f.Culprit(); c.Function != "Server.summarize" {
			continue
		}
		if f.Figures[runfmt.FigShare] != 0.3 || f.Figures[runfmt.FigOwnShare] > 0.3+1e-9 || slices.Contains(f.Names(), "java.util.regex.Pattern.compile") {
			t.Errorf("Server.summarize's finding %+v names %v; want its 30%% left, its own code at most that, without the constructor", f.Figures, f.Names())
		}
		if f.Figures[runfmt.FigExclusiveCPU] != f.Figures[runfmt.FigCPUPerRequest] {
			t.Errorf("Server.summarize's exclusive CPU %v of %v; want all of its rest", f.Figures[runfmt.FigExclusiveCPU], f.Figures[runfmt.FigCPUPerRequest])
		}
		return
	}
	t.Errorf("findings %s; want Server.summarize's rest named", describe(fs))
}

// TestValueConstructorNotNamed: a New function that makes a small value
// per call (an ID: 16 bytes) is not an object to build once, however
// much of the CPU it holds; the allocation profile tells it apart.
func TestValueConstructorNotNamed(t *testing.T) {
	cpu := labtest.NewProfile(t, "cpu/nanoseconds").
		Add("main.handler;main.newID;github.com/google/uuid.New;crypto/rand.Read;syscall.Syscall", 60e6).
		Add("main.handler;main.render", 40e6).
		Profile()
	allocs := labtest.NewProfile(t, "alloc_objects/count", "alloc_space/bytes").
		Add("main.handler;main.newID;github.com/google/uuid.New;runtime.mallocgc", 1000, 16e3).
		Add("main.handler;main.render;runtime.mallocgc", 1000, 4e6).
		Profile()
	fs := Findings(FindingInput{CPU: cpu, Allocs: allocs, Requests: 1000, Target: &runfmt.TargetSummary{CPUMsPerRequest: 0.1}})
	if cs := findKind(fs, runfmt.FindingConstructor); len(cs) > 0 {
		t.Errorf("constructor findings %s; want none for 16 bytes a request", describe(cs))
	}
}

// ctorEntry is the constructor a finding names.
func ctorEntry(f *runfmt.Finding) runfmt.FuncEvidence {
	if es := withRole(f, runfmt.RoleEntry); len(es) > 0 {
		return es[0]
	}
	return runfmt.FuncEvidence{}
}
