package archtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
)

// A run's words are made when it is shown, from its data (package
// report); what run.json holds in words is a note, kept under a key that
// ends in note or notes (runfmt's oldkeys.go), and quotes what perflab
// cannot type (an error, a tool's answer). No package reads such words
// back to decide something: it reads the typed field that says it.
// TestNoPackageParsesRenderedText type-checks perflab's packages (their
// non-test files) and flags a search, a comparison or a split of one of
// those fields' values.

// proseKeys are the JSON keys of runfmt fields that hold words besides
// the notes: a comparison's verdict and warnings (perflab compare's
// output, not run.json's), and a partial run's quoted error
// (partial_reason, a key scripts read).
var proseKeys = map[string]bool{"warnings": true, "reasons": true, "partial_reason": true}

// isProseKey says whether a runfmt field under JSON key k holds words.
func isProseKey(k string) bool {
	return strings.HasSuffix(k, "note") || strings.HasSuffix(k, "notes") || proseKeys[k]
}

// parsers are the functions that read a string's content: a search, a
// comparison, a split, a rewrite. Their first string argument (strings,
// regexp's methods) or their slice (slices) is checked.
var parsers = map[string]map[string]bool{
	"strings": set("Contains", "ContainsAny", "ContainsFunc", "ContainsRune", "Count", "Cut", "CutPrefix", "CutSuffix",
		"EqualFold", "Fields", "FieldsFunc", "FieldsSeq", "HasPrefix", "HasSuffix", "Index", "IndexAny", "IndexByte",
		"IndexFunc", "IndexRune", "LastIndex", "LastIndexAny", "LastIndexByte", "LastIndexFunc", "Replace", "ReplaceAll",
		"Split", "SplitAfter", "SplitAfterN", "SplitN", "SplitSeq", "TrimPrefix", "TrimSuffix"),
	"slices": set("Contains", "ContainsFunc", "Index", "IndexFunc"),
	"regexp": set("MatchString", "FindString", "FindStringIndex", "FindStringSubmatch", "FindStringSubmatchIndex",
		"FindAllString", "FindAllStringIndex", "FindAllStringSubmatch", "FindAllStringSubmatchIndex", "ReplaceAllString",
		"ReplaceAllLiteralString", "ReplaceAllStringFunc", "Split"),
}

// passThrough are the functions whose result is their argument's words,
// reshaped: a note lowered or trimmed is still the note.
var passThrough = set("ToLower", "ToUpper", "TrimSpace", "Trim", "TrimFunc", "TrimLeft", "TrimRight", "ToValidUTF8", "Join")

func set(names ...string) map[string]bool {
	m := map[string]bool{}
	for _, n := range names {
		m[n] = true
	}
	return m
}

func TestNoPackageParsesRenderedText(t *testing.T) {
	pkgs := perflabPackages(t)
	fset := token.NewFileSet()
	imp := exportImporter(fset)
	checked := 0
	for _, p := range pkgs {
		var files []*ast.File
		for _, name := range p.GoFiles {
			f, err := parser.ParseFile(fset, filepath.Join(p.Dir, name), nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			files = append(files, f)
		}
		checkProse(t, fset, imp, p.ImportPath, files, func(pos token.Position, msg string) { t.Errorf("%s: %s", pos, msg) })
		checked += len(files)
	}
	if checked < 100 {
		t.Fatalf("checked %d files; want perflab's hundreds", checked)
	}
}

// TestProseCheckFinds: the check finds a search, a split, a comparison
// with a sentence and a rewrite of a note, through a range, a copy, a
// conversion and a lowering; it lets a presence test, a note said once
// and the typed fields be.
func TestProseCheckFinds(t *testing.T) {
	perflabPackages(t)
	const src = `package p

import (
	"slices"
	"strings"

	"perflab/internal/runfmt"
)

func read(r *runfmt.Run, seen []string) bool {
	for _, d := range r.Degradations {
		if strings.Contains(strings.ToLower(d.Note), "cpu") { // found
			return true
		}
		if d.Profile == runfmt.ProfileCPU || d.Note != "" {
			return true
		}
	}
	note := r.Quality.SummaryNote
	if s, ok := strings.CutSuffix(string(note), "far less"); ok { // found
		_ = s
	}
	_ = strings.Split(r.Profiling.Notes[0], ": ") // found
	_ = slices.ContainsFunc(r.Profiling.Notes, func(n string) bool { return n != "" }) // found
	for _, w := range r.Warnings {
		if !slices.Contains(seen, w) && slices.Contains(r.Warnings, w) {
			seen = append(seen, w)
		}
	}
	_ = slices.Contains(r.Warnings, "profiles interrupted") // found
	return r.PartialReason == "the service exited" || strings.HasPrefix(r.Name, "x") // found
}
`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", src, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	var lines []int
	checkProse(t, fset, exportImporter(fset), "p", []*ast.File{f}, func(pos token.Position, msg string) { lines = append(lines, pos.Line) })
	var want []int
	for i, l := range strings.Split(src, "\n") {
		if strings.HasSuffix(l, "// found") {
			want = append(want, i+1)
		}
	}
	if !slices.Equal(lines, want) {
		t.Errorf("found at lines %v; want %v", lines, want)
	}
}

// exportImporter imports packages from the compiler's export data
// (exportFiles, filled by perflabPackages).
func exportImporter(fset *token.FileSet) types.ImporterFrom {
	return importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		f, ok := exportFiles[path]
		if !ok {
			return nil, os.ErrNotExist
		}
		return os.Open(f)
	}).(types.ImporterFrom)
}

// checkProse type-checks one package's files and reports each reading of
// a run's words.
func checkProse(t *testing.T, fset *token.FileSet, imp types.ImporterFrom, path string, files []*ast.File, report func(token.Position, string)) {
	t.Helper()
	info := &types.Info{Types: map[ast.Expr]types.TypeAndValue{}, Defs: map[*ast.Ident]types.Object{},
		Uses: map[*ast.Ident]types.Object{}, Selections: map[*ast.SelectorExpr]*types.Selection{}}
	conf := types.Config{Importer: imp, FakeImportC: true}
	if _, err := conf.Check(path, fset, files, info); err != nil {
		t.Fatalf("type-checking %s: %v", path, err)
	}
	c := proseCheck{info: info, fset: fset, report: report, prose: map[types.Object]bool{}}
	for _, f := range files {
		c.file(f)
	}
}

// listedPackage is what go list says of a package.
type listedPackage struct {
	ImportPath, Dir, Export string
	GoFiles                 []string
	Standard                bool
}

// exportFiles are the compiler's export data of every package perflab
// builds, by import path, for the type checker's imports; listed are
// perflab's own packages. Both are filled once, by perflabPackages.
var (
	listOnce    sync.Once
	exportFiles = map[string]string{}
	listed      []listedPackage
	listErr     error
)

// perflabPackages lists perflab's packages, with the export data of all
// they depend on (go list -export builds them, or finds them built).
func perflabPackages(t *testing.T) []listedPackage {
	t.Helper()
	listOnce.Do(func() {
		out, err := exec.Command("go", "list", "-export", "-deps", "-json=ImportPath,Dir,Export,GoFiles,Standard", "perflab/...").Output()
		if err != nil {
			listErr = fmt.Errorf("go list -export: %w", err)
			return
		}
		for dec := json.NewDecoder(bytes.NewReader(out)); dec.More(); {
			var p listedPackage
			if err := dec.Decode(&p); err != nil {
				listErr = fmt.Errorf("reading go list's output: %w", err)
				return
			}
			exportFiles[p.ImportPath] = p.Export
			if !p.Standard && (p.ImportPath == "perflab" || strings.HasPrefix(p.ImportPath, "perflab/")) {
				listed = append(listed, p)
			}
		}
	})
	if listErr != nil {
		t.Fatal(listErr)
	}
	if len(listed) < 20 {
		t.Fatalf("go list found %d of perflab's packages", len(listed))
	}
	return listed
}

// proseCheck finds, in one package's files, the calls that read words a
// runfmt field holds.
type proseCheck struct {
	info *types.Info
	fset *token.FileSet
	// report receives each reading found, at pos.
	report func(pos token.Position, msg string)
	// prose are the variables that hold such words: a range over them,
	// or a copy of one.
	prose map[types.Object]bool
}

func (c *proseCheck) file(f *ast.File) {
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.RangeStmt:
			if c.words(n.X) {
				for _, e := range []ast.Expr{n.Key, n.Value} {
					if id, ok := e.(*ast.Ident); ok && c.info.Defs[id] != nil {
						c.prose[c.info.Defs[id]] = true
					}
				}
			}
		case *ast.AssignStmt:
			if len(n.Lhs) == len(n.Rhs) {
				for i, l := range n.Lhs {
					if id, ok := l.(*ast.Ident); ok && c.info.Defs[id] != nil && c.words(n.Rhs[i]) {
						c.prose[c.info.Defs[id]] = true
					}
				}
			}
		case *ast.CallExpr:
			fn, ok := c.parser(n)
			if ok && fn == "slices.Contains" || fn == "slices.Index" {
				// A list of words searched for the same words (warnings
				// said once) reads no words; for another value, it does.
				ok = len(n.Args) == 2 && !c.words(n.Args[1])
			}
			if ok && len(n.Args) > 0 && c.words(n.Args[0]) {
				c.report(c.fset.Position(n.Pos()), fn+" reads a run's words ("+types.ExprString(n.Args[0])+"): read the typed field that says it")
			}
		case *ast.BinaryExpr:
			if n.Op == token.EQL || n.Op == token.NEQ {
				if isLiteral(n.X) && c.words(n.Y) || isLiteral(n.Y) && c.words(n.X) {
					c.report(c.fset.Position(n.Pos()), types.ExprString(n)+" compares a run's words with a sentence: read the typed field that says it")
				}
			}
		}
		return true
	})
}

// parser says whether call calls one of parsers, and which.
func (c *proseCheck) parser(call *ast.CallExpr) (string, bool) {
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok {
		return "", false
	}
	fn, ok := c.info.Uses[sel.Sel].(*types.Func)
	if !ok || fn.Pkg() == nil {
		return "", false
	}
	if names, ok := parsers[fn.Pkg().Path()]; ok && names[fn.Name()] {
		return fn.Pkg().Name() + "." + fn.Name(), true
	}
	return "", false
}

// words says whether e's value is words a runfmt field holds (or holds a
// list or map of): the field itself, an element of it, a variable that
// copied it, or any of those lowered, trimmed or joined.
func (c *proseCheck) words(e ast.Expr) bool {
	switch e := e.(type) {
	case *ast.ParenExpr:
		return c.words(e.X)
	case *ast.IndexExpr:
		return c.words(e.X)
	case *ast.SliceExpr:
		return c.words(e.X)
	case *ast.StarExpr:
		return c.words(e.X)
	case *ast.Ident:
		return c.prose[c.info.Uses[e]]
	case *ast.SelectorExpr:
		return c.proseField(e)
	case *ast.CallExpr:
		if tv, ok := c.info.Types[e.Fun]; ok && tv.IsType() && len(e.Args) == 1 {
			return c.words(e.Args[0]) // a conversion
		}
		if sel, ok := e.Fun.(*ast.SelectorExpr); ok {
			if fn, ok := c.info.Uses[sel.Sel].(*types.Func); ok && fn.Pkg() != nil && fn.Pkg().Path() == "strings" && passThrough[fn.Name()] && len(e.Args) > 0 {
				return c.words(e.Args[0])
			}
		}
	}
	return false
}

// proseField says whether sel selects a field of a runfmt type whose JSON
// key says it holds words.
func (c *proseCheck) proseField(sel *ast.SelectorExpr) bool {
	s, ok := c.info.Selections[sel]
	if !ok || s.Kind() != types.FieldVal {
		return false
	}
	v, ok := s.Obj().(*types.Var)
	if !ok || v.Pkg() == nil || v.Pkg().Path() != "perflab/internal/runfmt" {
		return false
	}
	st := structOf(s.Recv(), s.Index())
	if st == nil {
		return false
	}
	for i := range st.NumFields() {
		if st.Field(i) == v {
			key, _, _ := strings.Cut(reflect.StructTag(st.Tag(i)).Get("json"), ",")
			return isProseKey(key)
		}
	}
	return false
}

// structOf is the struct that declares the field a selection of recv
// reaches by the path of field indices index (through embedded fields).
func structOf(recv types.Type, index []int) *types.Struct {
	t := recv
	var st *types.Struct
	for i, at := range index {
		if p, ok := t.Underlying().(*types.Pointer); ok {
			t = p.Elem()
		}
		s, ok := t.Underlying().(*types.Struct)
		if !ok {
			return nil
		}
		st = s
		if i < len(index)-1 {
			t = s.Field(at).Type()
		}
	}
	return st
}

// isLiteral says whether e is a string literal other than "" (whether a
// field holds words at all is not a reading of them).
func isLiteral(e ast.Expr) bool {
	l, ok := e.(*ast.BasicLit)
	return ok && l.Kind == token.STRING && l.Value != `""` && l.Value != "``"
}
