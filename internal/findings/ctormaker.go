package findings

import (
	"cmp"
	"go/ast"
	"go/parser"
	"go/token"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/google/pprof/profile"

	"perflab/internal/analysis"
	"perflab/internal/runfmt"
)

// The object a constructor belongs to. A library method that builds its
// object's state on first use (compress/gzip's Writer makes its flate
// compressor at its first Write) costs on every request only when the
// object is new on every request: the line to change is the one that
// made it, with a constructor of the method's own package
// (compress/gzip.NewWriter), not the line that called the method. That
// call is cheap, so a profile rarely shows it: it is looked for in the
// CPU and allocation profiles (a user frame calling such a constructor),
// then in the Go source of the user functions on the constructor's
// stacks (a call of that package's constructor in the function around
// each frame's line).

// makerContext is the source lines kept on each side of a maker's line.
const makerContext = 2

// AttachMakers names, for each constructor finding whose constructor a
// library call runs (runfmt.RoleLibrary), the line of the user's code
// that made the object per request: its first line, and a function of
// role runfmt.RoleSite (the function, and the constructor it called as
// its Callee). Run it after AttachLines.
func AttachMakers(cpu, allocs *profile.Profile, fs []runfmt.Finding, src *analysis.Sources, uc analysis.UserCode) {
	if cpu == nil {
		return
	}
	if src == nil {
		src = &analysis.Sources{}
	}
	gs := goSources{src: src, parsed: map[string]*goFile{}}
	for i := range fs {
		f := &fs[i]
		lib := withRole(f, runfmt.RoleLibrary)
		if f.Kind != runfmt.FindingConstructor || len(lib) == 0 {
			continue
		}
		pkg := ownerOf(lib[0].Function, lib[0].File)
		onPath := userFrames(cpu, lib[0].Function, uc)
		m, ok := profileMaker(cpu, pkg, onPath, uc)
		if !ok {
			m, ok = profileMaker(allocs, pkg, onPath, uc)
		}
		if !ok {
			m, ok = gs.maker(onPath, pkg)
		}
		if !ok {
			continue
		}
		f.Evidence.Functions = append(f.Evidence.Functions, runfmt.FuncEvidence{Role: runfmt.RoleSite, Function: m.caller, File: m.file, Callee: m.ctor})
		f.Lines = append([]runfmt.SourceLine{makerLine(m, f.Figures[runfmt.FigCPUPerRequest], src)}, f.Lines...)
	}
}

// maker is a user function's call of a constructor, at a line.
type maker struct {
	caller, file, ctor string
	line               int64
}

// frame is one function of a sample's stack, at its line.
type frame struct {
	name, file string
	line       int64
}

// sampleFrames are a sample's frames, leaf first, inlined frames
// expanded.
func sampleFrames(s *profile.Sample) []frame {
	var out []frame
	for _, loc := range s.Location {
		for _, ln := range loc.Line {
			if ln.Function != nil {
				out = append(out, frame{ln.Function.Name, ln.Function.Filename, ln.Line})
			}
		}
	}
	return out
}

// userFrames are the user frames, leaf first and each once, of the
// samples with a frame of function via, costliest samples first.
func userFrames(p *profile.Profile, via string, uc analysis.UserCode) []frame {
	samples := slices.Clone(p.Sample)
	slices.SortStableFunc(samples, func(a, b *profile.Sample) int { return cmp.Compare(sum(b.Value), sum(a.Value)) })
	var out []frame
	for _, s := range samples {
		fr := sampleFrames(s)
		if !slices.ContainsFunc(fr, func(f frame) bool { return f.name == via }) {
			continue
		}
		for _, f := range fr {
			if uc.IsUser(f.name, f.file) && !slices.Contains(out, f) {
				out = append(out, f)
			}
		}
	}
	return out
}

func sum(vs []int64) int64 {
	var n int64
	for _, v := range vs {
		n += v
	}
	return n
}

// profileMaker finds in p the costliest call, from a user function on
// the constructor's stacks (onPath), of a constructor of package pkg.
func profileMaker(p *profile.Profile, pkg string, onPath []frame, uc analysis.UserCode) (maker, bool) {
	if p == nil || len(onPath) == 0 {
		return maker{}, false
	}
	vi := len(p.SampleType) - 1 // alloc_space, or the CPU's time
	for i, st := range p.SampleType {
		if st.Type == "alloc_space" {
			vi = i
		}
	}
	cost := map[maker]int64{}
	for _, s := range p.Sample {
		fr := sampleFrames(s)
		for i := 0; i+1 < len(fr); i++ {
			f, up := fr[i], fr[i+1]
			if ownerOf(f.name, f.file) != pkg || !constructorName(f.name, f.file) || uc.IsUser(f.name, f.file) || !uc.IsUser(up.name, up.file) {
				continue
			}
			if slices.ContainsFunc(onPath, func(o frame) bool { return o.name == up.name }) {
				cost[maker{caller: up.name, file: up.file, ctor: f.name, line: up.line}] += s.Value[vi]
			}
			break
		}
	}
	var best maker
	found := false
	for m, c := range cost {
		if !found || c > cost[best] || c == cost[best] && m.line < best.line {
			best, found = m, true
		}
	}
	return best, found
}

// ownerOf is what a function belongs to: a Go function's package path,
// else its qualifier (class, module, type).
func ownerOf(name, file string) string {
	if strings.HasSuffix(file, ".go") {
		slash := strings.LastIndexByte(name, '/')
		if dot := strings.IndexByte(name[slash+1:], '.'); dot >= 0 {
			return name[:slash+1+dot]
		}
	}
	qual, _ := splitFrame(name)
	return qual
}

// makerLine is the maker's line as a culprit line: it causes the
// finding's whole cost.
func makerLine(m maker, usPerRequest float64, src *analysis.Sources) runfmt.SourceLine {
	sl := runfmt.SourceLine{File: m.file, Line: m.line, Pct: 100, CostUsPerRequest: usPerRequest}
	f := src.File(m.file)
	text, ok := f.Line(m.line)
	if f.Err != nil || !ok {
		return sl
	}
	sl.Text = strings.TrimSpace(text)
	if match, known := f.Matches(m.caller, m.line); known && !match {
		sl.SourceChanged = true
	}
	lo, hi := max(1, m.line-makerContext), min(int64(len(f.Lines)), m.line+makerContext)
	sl.ContextStart, sl.Context = lo, slices.Clone(f.Lines[lo-1:hi])
	return sl
}

// goSources reads and parses the Go files a search reads, once each.
type goSources struct {
	src    *analysis.Sources
	parsed map[string]*goFile
}

// goFile is a parsed Go file (nil ast when it could not be read).
type goFile struct {
	fset *token.FileSet
	ast  *ast.File
}

func (g goSources) file(name string) *goFile {
	if f, ok := g.parsed[name]; ok {
		return f
	}
	gf := &goFile{fset: token.NewFileSet()}
	if sf := g.src.File(name); sf.Err == nil && strings.HasSuffix(sf.Path, ".go") {
		gf.ast, _ = parser.ParseFile(gf.fset, sf.Path, strings.Join(sf.Lines, "\n"), parser.SkipObjectResolution)
	}
	g.parsed[name] = gf
	return gf
}

// maker looks in the source of each frame's function, leaf first, for
// a call of a constructor of package pkg.
func (g goSources) maker(frames []frame, pkg string) (maker, bool) {
	for _, fr := range frames {
		if !strings.HasSuffix(fr.file, ".go") || fr.line <= 0 {
			continue
		}
		if m, ok := g.file(fr.file).call(fr, pkg); ok {
			return m, true
		}
	}
	return maker{}, false
}

// call finds, in the function around fr's line, the first call of a
// constructor of package pkg.
func (gf *goFile) call(fr frame, pkg string) (maker, bool) {
	if gf.ast == nil {
		return maker{}, false
	}
	names := map[string]bool{}
	for _, imp := range gf.ast.Imports {
		if p, err := strconv.Unquote(imp.Path.Value); err == nil && p == pkg {
			if imp.Name != nil {
				names[imp.Name.Name] = true
			} else {
				names[importName(p)] = true
			}
		}
	}
	if len(names) == 0 {
		return maker{}, false
	}
	var body ast.Node // the innermost function around the line
	ast.Inspect(gf.ast, func(n ast.Node) bool {
		switch fn := n.(type) {
		case *ast.FuncDecl, *ast.FuncLit:
			if gf.line(fn.Pos()) <= fr.line && fr.line <= gf.line(fn.End()) {
				body = fn
			}
		}
		return true
	})
	if body == nil {
		return maker{}, false
	}
	var m maker
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || found {
			return !found
		}
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		if id, ok := sel.X.(*ast.Ident); ok && names[id.Name] && constructorName(pkg+"."+sel.Sel.Name, "") {
			m, found = maker{caller: fr.name, file: fr.file, ctor: pkg + "." + sel.Sel.Name, line: gf.line(call.Pos())}, true
		}
		return !found
	})
	return m, found
}

func (gf *goFile) line(p token.Pos) int64 { return int64(gf.fset.Position(p).Line) }

var majorVersion = regexp.MustCompile(`^v[0-9]+$`)

// importName is the name a Go import path's package goes by unless it
// is renamed: its last element, without a major version element
// ("github.com/x/y/v2") or suffix ("gopkg.in/yaml.v3") and a "go-"
// prefix.
func importName(p string) string {
	elems := strings.Split(p, "/")
	last := elems[len(elems)-1]
	if len(elems) > 1 && majorVersion.MatchString(last) {
		last = elems[len(elems)-2]
	}
	if i := strings.Index(last, ".v"); i > 0 {
		last = last[:i]
	}
	return strings.TrimPrefix(path.Base(last), "go-")
}
