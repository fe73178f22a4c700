package lab

// Acceptance tests of the frame that causes a cost when it is a
// library's: a Flask handler whose time is werkzeug's multipart parser,
// reached through request.form (a cached_property's __get__ and frames
// that only pass the call on), is named with the parser's function that
// holds the cost, its file and its line, without --user-code; so is a Go
// handler's under a module dependency (gopkg.in/yaml.v3's parser). And a
// single-threaded node service whose one thread is busy is limited by
// that thread, its CPU culprit first, named at the line of its costly
// call, not at its declaration.

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"net/http"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"perflab/internal/funcname"
	"perflab/internal/labtest"
	"perflab/internal/report"
	"perflab/internal/runfmt"
	"perflab/internal/service"
)

// orderImport is a multipart/form-data body of n order lines, one field
// each, and its content type.
func orderImport(n int) ([]byte, string) {
	const boundary = "perflab-order-import"
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "--%s\r\nContent-Disposition: form-data; name=\"line%d\"\r\n\r\nsku-%d:%d\r\n", boundary, i, i, i%5+1)
	}
	fmt.Fprintf(&b, "--%s--\r\n", boundary)
	return []byte(b.String()), "multipart/form-data; boundary=" + boundary
}

// defLines is where the function of a Python file whose qualified name
// is qualname ("MultipartDecoder.next_event") begins and ends, read from
// the file itself with Python's ast.
func defLines(t *testing.T, file, qualname string) (first, last int64) {
	t.Helper()
	const script = `import ast, sys
tree = ast.parse(open(sys.argv[1]).read())
def find(body, names):
    for n in body:
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and n.name == names[0]:
            if len(names) == 1:
                print(n.lineno, n.end_lineno)
                sys.exit(0)
            find(n.body, names[1:])
find(tree.body, sys.argv[2].split("."))
sys.exit("no " + sys.argv[2])`
	out, err := exec.Command("python3", "-c", script, file, qualname).CombinedOutput()
	if err != nil {
		t.Fatalf("finding %s in %s: %v: %s", qualname, file, err, out)
	}
	f := strings.Fields(string(out))
	if len(f) != 2 {
		t.Fatalf("finding %s in %s: %q", qualname, file, out)
	}
	first, _ = strconv.ParseInt(f[0], 10, 64)
	last, _ = strconv.ParseInt(f[1], 10, 64)
	return first, last
}

// TestAcceptanceFlaskLibraryFunction: flaskform under gunicorn, 400
// order lines posted per request. The handler's finding names werkzeug's
// MultipartDecoder.next_event, which holds most of the parser's cost and
// at least half of the handler's, with its file (werkzeug's, in
// site-packages) and a line inside it as the installed source has it,
// past cached_property.__get__; the headline and the hot table say the
// same. No --user-code is given.
func TestAcceptanceFlaskLibraryFunction(t *testing.T) {
	if testing.Short() {
		t.Skip("acceptance: runs a Flask service under load for seconds")
	}
	needPython(t, "flask", "gunicorn")
	addr := labtest.FreeAddr(t)
	body, contentType := orderImport(400)
	cfg := acceptanceConfig(t, addr, "/import", gunicornCmd("gunicorn")(addr)...)
	cfg.Dir, cfg.ReadyURL = frameworkDir(t, "flaskform"), "http://"+addr+"/healthz"
	tg := &cfg.Load.Targets[0]
	tg.Method, tg.Body, tg.Header = http.MethodPost, body, http.Header{"Content-Type": {contentType}}
	cfg.Budget.CPUs, cfg.Load.Concurrency, cfg.Load.Duration = 2, 2, 4*time.Second
	if cfg.UserCode != nil {
		t.Fatal("the run must decide user code by itself")
	}
	r, _ := runAcceptance(t, cfg)
	t.Logf("limit %s; findings:%s", r.Answer.First().Kind, describeFindings(r.Findings))
	if r.Load.Errors > 0 || r.Load.Requests == 0 {
		t.Fatalf("load: %d requests, %d errors %v", r.Load.Requests, r.Load.Errors, r.Load.Status)
	}
	i := slices.IndexFunc(r.Findings, func(f runfmt.Finding) bool {
		c, _ := f.Culprit()
		return f.Kind == runfmt.FindingHotUserFunction && c.Function == "import_rows"
	})
	if i < 0 {
		t.Fatalf("no hot-user-function finding names import_rows")
	}
	f := r.Findings[i]
	var held runfmt.FuncEvidence
	for _, e := range f.Evidence.Functions {
		if e.Role == runfmt.RoleLibraryFunc {
			held = e
		}
	}
	t.Logf("finding #%d: %s\n%s", i+1, title(f), detail(f))
	if held.Function != "MultipartDecoder.next_event" || !strings.Contains(held.File, "/site-packages/werkzeug/") {
		t.Fatalf("the finding's library function %+v; want werkzeug's MultipartDecoder.next_event", held)
	}
	first, last := defLines(t, held.File, held.Function)
	if held.Line <= first || held.Line > last {
		t.Errorf("its line %d; want a line inside MultipartDecoder.next_event, %s:%d-%d", held.Line, filepath.Base(held.File), first, last)
	}
	if sh, all := held.Figures[runfmt.FigShare], f.Figures[runfmt.FigShare]; sh < 0.5*all {
		t.Errorf("it holds %.0f%% of the CPU, the handler %.0f%%: want at least half of the handler's", 100*sh, 100*all)
	}
	label := funcname.LineLabel(held.Function, held.File, held.Line)
	if !strings.Contains(title(f), label) || !strings.Contains(detail(f), label) {
		t.Errorf("the finding's words do not name %s:\n%s\n%s", label, title(f), detail(f))
	}
	if slices.ContainsFunc(f.Evidence.Functions, func(e runfmt.FuncEvidence) bool {
		return e.Role == runfmt.RoleLibraryFunc && strings.Contains(e.Function, "__get__")
	}) {
		t.Errorf("an entry frame is named where the cost goes: %+v", f.Evidence.Functions)
	}
	j := slices.IndexFunc(r.Hot, func(h runfmt.HotFunc) bool { return h.Function == "import_rows" })
	if j < 0 || r.Hot[j].LibraryFunc == nil {
		t.Fatalf("the hot table's import_rows names no library function: %+v", r.Hot)
	}
	if lf := r.Hot[j].LibraryFunc; lf.Function != held.Function || lf.Line != held.Line {
		t.Errorf("the hot table names %s at line %d; the finding %s at line %d", lf.Function, lf.Line, held.Function, held.Line)
	}
}

// TestFlaskformAnswers: flaskform counts every line of the body the
// acceptance test posts (the planted cost is the parsing of real
// fields), outside perflab.
func TestFlaskformAnswers(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a Flask service")
	}
	needPython(t, "flask", "gunicorn")
	addr := labtest.FreeAddr(t)
	startServer(t, frameworkDir(t, "flaskform"), "gunicorn", "-w", "1", "-b", addr, "app:app")
	if err := waitHTTP("http://"+addr+"/healthz", 20*time.Second); err != nil {
		t.Fatal(err)
	}
	body, contentType := orderImport(400)
	resp, err := http.Post("http://"+addr+"/import", contentType, strings.NewReader(string(body)))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var lines, items int
	if _, err := fmt.Fscanf(resp.Body, "%d lines, %d items", &lines, &items); err != nil || lines != 400 || items != 1200 {
		t.Errorf("answer %d lines, %d items (%v); want 400 lines, 1200 items", lines, items, err)
	}
}

// goMethodLines is where the method recv.name (a function when recv is
// "") of the Go file begins and ends, read from the file with go/parser.
func goMethodLines(t *testing.T, file, recv, name string) (first, last int64) {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, file, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Name.Name != name {
			continue
		}
		r := ""
		if fd.Recv != nil && len(fd.Recv.List) == 1 {
			typ := fd.Recv.List[0].Type
			if st, ok := typ.(*ast.StarExpr); ok {
				typ = st.X
			}
			if id, ok := typ.(*ast.Ident); ok {
				r = id.Name
			}
		}
		if r == recv {
			return int64(fset.Position(fd.Pos()).Line), int64(fset.Position(fd.End()).Line)
		}
	}
	t.Fatalf("%s holds no function %s.%s", file, recv, name)
	return 0, 0
}

// TestAcceptanceGoLibraryFunction: yamlquote decodes its whole pricing
// table with gopkg.in/yaml.v3 on every request, under a 1-core budget.
// main.quote's finding names yaml.v3's (*parser).parse, which holds at
// least half of quote's cost (the decoding is the rest), in the module
// cache's yaml.v3 source at a line inside it, past yaml.Unmarshal; so
// does the hot table.
func TestAcceptanceGoLibraryFunction(t *testing.T) {
	if testing.Short() {
		t.Skip("acceptance: runs a service under load for seconds")
	}
	labtest.RequireRoot(t, "cgroups for the CPU budget")
	cfg := ctorService(t, labtest.BuildService(t, "yamlquote"), "/quote?plan=7")
	cfg.Load.Duration = 3 * time.Second
	r, _ := runAcceptance(t, cfg)
	t.Logf("limit %s; findings:%s", r.Answer.First().Kind, describeFindings(r.Findings))
	i := slices.IndexFunc(r.Findings, func(f runfmt.Finding) bool {
		c, _ := f.Culprit()
		return f.Kind == runfmt.FindingHotUserFunction && c.Function == "main.quote"
	})
	if i < 0 {
		t.Fatalf("no hot-user-function finding names main.quote")
	}
	f := r.Findings[i]
	var held runfmt.FuncEvidence
	for _, e := range f.Evidence.Functions {
		if e.Role == runfmt.RoleLibraryFunc {
			held = e
		}
	}
	t.Logf("finding #%d: %s\n%s", i+1, title(f), detail(f))
	if !strings.HasSuffix(held.Function, ".(*parser).parse") || !strings.HasPrefix(held.Function, "gopkg.in/yaml") ||
		!strings.Contains(held.File, "/gopkg.in/yaml.v3@") {
		t.Fatalf("the finding's library function %+v; want gopkg.in/yaml.v3's (*parser).parse in the module cache", held)
	}
	first, last := goMethodLines(t, held.File, "parser", "parse")
	if held.Line <= first || held.Line > last {
		t.Errorf("its line %d; want a line inside (*parser).parse, %s:%d-%d", held.Line, filepath.Base(held.File), first, last)
	}
	if sh, all := held.Figures[runfmt.FigShare], f.Figures[runfmt.FigShare]; sh < 0.5*all {
		t.Errorf("it holds %.0f%% of the CPU, main.quote %.0f%%: want at least half of quote's", 100*sh, 100*all)
	}
	if label := funcname.LineLabel(held.Function, held.File, held.Line); !strings.Contains(title(f), label) {
		t.Errorf("the finding's title does not name %s: %s", label, title(f))
	}
	j := slices.IndexFunc(r.Hot, func(h runfmt.HotFunc) bool { return h.Function == "main.quote" })
	if j < 0 || r.Hot[j].LibraryFunc == nil || r.Hot[j].LibraryFunc.Function != held.Function || r.Hot[j].LibraryFunc.Line != held.Line {
		t.Errorf("the hot table's main.quote: %+v; want its library function %s at line %d", r.Hot[j:min(j+1, len(r.Hot))], held.Function, held.Line)
	}
}

// TestYamlquoteModes: yamlquote answers the same plan's quote in both
// modes (the fix caches the decoded table, it changes no answer).
func TestYamlquoteModes(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and starts a service")
	}
	bin := labtest.BuildService(t, "yamlquote")
	var bodies []string
	for _, mode := range []string{"buggy", "fixed"} {
		addr := labtest.FreeAddr(t)
		cmd := exec.Command(bin, "-addr", addr, "-pprof-addr", labtest.FreeAddr(t), "-mode", mode)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
		if err := waitHTTP("http://"+addr+"/quote?plan=7", 10*time.Second); err != nil {
			t.Fatalf("yamlquote -mode %s: %v", mode, err)
		}
		resp, err := http.Get("http://" + addr + "/quote?plan=7")
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		_, err = io.Copy(&b, resp.Body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("yamlquote -mode %s: %d %q %v", mode, resp.StatusCode, b.String(), err)
		}
		bodies = append(bodies, b.String())
	}
	if bodies[0] != bodies[1] || !strings.Contains(bodies[0], `"plan":"plan-007"`) {
		t.Errorf("buggy %q, fixed %q; want the same quote of plan-007", bodies[0], bodies[1])
	}
}

// TestAcceptanceNodeOneThread: nodetoken, one node process with no CPU
// budget, under more clients than its one JavaScript thread serves:
// issueToken derives a key with crypto.pbkdf2Sync on every request. The
// limit is the one thread (cpu-thread: it runs or, on a machine whose
// other processes take the CPUs, waits to run the whole window while the
// requests queue for it), not a queue; finding #1 is issueToken at the
// line that calls pbkdf2Sync (server.js:26), not its declaration
// (server.js:21), and no wait ranks above it; the verdict says the
// thread limits it, not that its requests mostly wait.
func TestAcceptanceNodeOneThread(t *testing.T) {
	if testing.Short() {
		t.Skip("acceptance: runs a node service under load")
	}
	bin := labtest.NeedTool(t, "node", "")
	addr := labtest.FreeAddr(t)
	script, _ := filepath.Abs("../../testdata/services/nodetoken/server.js")
	cfg := acceptanceConfig(t, addr, "/token?user=7", bin, script, "--addr", addr)
	cfg.Budget = service.Budget{}
	cfg.Load.Concurrency, cfg.Load.Duration = 4, 4*time.Second
	call, decl := lineWith(t, script, "crypto.pbkdf2Sync("), lineWith(t, script, "function issueToken(")
	r, dir := runAcceptance(t, cfg)
	lim := r.Answer.First()
	t.Logf("limit %s %+v (share %.2f); service %.2f cores, run-queue wait %.2f s; doubts %v; findings:%s", lim.Kind, lim.Figures, lim.Share,
		r.Target.CPUCoresMean, r.Target.RunqueueWaitSeconds, r.Answer.Doubts, describeFindings(r.Findings))
	if lim.Kind != runfmt.LimitCPUThread || lim.Figures[runfmt.FigCount] != 1 {
		t.Errorf("limit %s %+v; want cpu-thread, one single-threaded worker", lim.Kind, lim.Figures)
	}
	if len(r.Findings) == 0 {
		t.Fatal("no findings")
	}
	f := r.Findings[0]
	if c, _ := f.Culprit(); f.Kind != runfmt.FindingHotUserFunction || c.Function != "issueToken" {
		t.Fatalf("finding #1 is %s %q; want issueToken's CPU", f.Kind, title(f))
	}
	if len(f.Lines) == 0 || f.Lines[0].Line != call || !strings.Contains(f.Lines[0].Text, "pbkdf2Sync") {
		t.Errorf("finding #1's lines %+v; want server.js:%d, the pbkdf2Sync call, first (its declaration is line %d)", f.Lines, call, decl)
	}
	var head, full strings.Builder
	if err := report.WriteHeadline(&head, r); err != nil {
		t.Fatal(err)
	}
	if err := report.WriteVerdict(&full, r, dir); err != nil {
		t.Fatal(err)
	}
	if h := head.String(); !strings.Contains(h, "Limited by: one thread per worker") || strings.Contains(h, "mostly wait") {
		t.Errorf("the headline does not say the one thread limits it:\n%s", h)
	}
	if v := full.String(); !strings.Contains(v, "Verdict:\tCPU-bound on one thread per worker") || strings.Contains(v, "not CPU-bound") {
		t.Errorf("the verdict does not say the one thread binds it:\n%s", v)
	}
}
