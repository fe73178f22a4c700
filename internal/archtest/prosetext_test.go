package archtest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"testing"
)

// proseFields are the fields of perflab's records that hold words for
// people (a quality summary, the reasons of a verdict or a status, notes,
// warnings): they are written to be read, and code that decides on their
// words breaks when the words change. Code reads the data the words were
// made from instead.
var proseFields = map[string]bool{
	"Summary": true, "Reason": true, "Reasons": true, "Note": true, "Notes": true,
	"Warnings": true, "DegradedReasons": true, "PartialReason": true,
}

// searches are the functions of package strings that read a string's
// words; derived are those that make words from others.
var (
	searches = map[string]bool{
		"Contains": true, "ContainsAny": true, "HasPrefix": true, "HasSuffix": true, "Index": true, "IndexAny": true,
		"LastIndex": true, "Cut": true, "CutPrefix": true, "CutSuffix": true, "EqualFold": true, "Count": true,
	}
	derived = map[string]bool{"ToLower": true, "ToUpper": true, "TrimSpace": true, "Join": true, "TrimPrefix": true, "TrimSuffix": true}
)

// wordSearches are the places that still search a prose field's words,
// each with the record that will hold its data (file: from the module
// root, and the function). A place listed here that no longer searches
// fails the test, so the list only shrinks.
var wordSearches = []struct{ file, function, why string }{
	{"internal/target/spun.go", "MarkSpun", "the quality summary's tail is rewritten until run.json's quality is a typed record"},
}

// TestNoPackageParsesRenderedText: no code searches the words of a prose
// field (strings.Contains, HasPrefix, Index ... of X.Reasons, of an item
// ranged over from it, of a local copy, or of its words lowered or
// joined) but the places wordSearches lists.
func TestNoPackageParsesRenderedText(t *testing.T) {
	listed := map[[2]string]bool{}
	for _, w := range wordSearches {
		listed[[2]string{"../../" + w.file, w.function}] = false
	}
	for _, f := range goFiles(t) {
		for _, s := range proseSearches(f.ast) {
			k := [2]string{f.path, s.function}
			if _, ok := listed[k]; ok {
				listed[k] = true
				continue
			}
			t.Errorf("%s: strings.%s searches the words of a prose field: decide on the data they were written from", f.at(s.pos), s.call)
		}
	}
	for k, seen := range listed {
		if !seen {
			t.Errorf("%s: %s no longer searches a prose field's words: take it off wordSearches", k[0], k[1])
		}
	}
}

// TestProseSearchesFindsThem: the check finds a search of a field, of an
// item ranged over from it lowered, of a local copy and of an index, and
// passes searches of other strings.
func TestProseSearchesFindsThem(t *testing.T) {
	const src = `package p
func a(r *Run) bool {
	for _, d := range r.DegradedReasons {
		if strings.Contains(strings.ToLower(d), "cpu") {
			return true
		}
	}
	why := r.Quality.Summary
	return strings.HasPrefix(why, "NOISY") || strings.Contains(r.Notes[0], "x") || strings.Contains(strings.Join(r.Warnings, ";"), "y")
}
func b(name string, r *Run) bool {
	for _, p := range r.Profiles {
		if strings.HasPrefix(p.File, "cpu") {
			return true
		}
	}
	return strings.Contains(name, "main.") || len(r.Reasons) > 0
}
`
	f, err := parser.ParseFile(token.NewFileSet(), "p.go", src, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range proseSearches(f) {
		got = append(got, s.function+"."+s.call)
	}
	want := []string{"a.Contains", "a.HasPrefix", "a.Contains", "a.Contains"}
	if len(got) != len(want) {
		t.Fatalf("found %v; want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("found %v; want %v", got, want)
		}
	}
}

// proseSearch is a call that searches a prose field's words.
type proseSearch struct {
	function, call string
	pos            token.Pos
}

// proseSearches are the searches of prose fields' words in f's functions.
func proseSearches(f *ast.File) []proseSearch {
	var out []proseSearch
	for _, d := range f.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || fn.Body == nil {
			continue
		}
		words := map[string]bool{} // local names holding a prose field's words
		ast.Inspect(fn.Body, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.RangeStmt:
				if v, ok := n.Value.(*ast.Ident); ok && isWords(n.X, words) {
					words[v.Name] = true
				}
			case *ast.AssignStmt:
				if len(n.Lhs) == len(n.Rhs) {
					for i, r := range n.Rhs {
						if id, ok := n.Lhs[i].(*ast.Ident); ok && isWords(r, words) {
							words[id.Name] = true
						}
					}
				}
			case *ast.CallExpr:
				if name, ok := stringsCall(n); ok && searches[name] && len(n.Args) > 0 && isWords(n.Args[0], words) {
					out = append(out, proseSearch{fn.Name.Name, name, n.Pos()})
				}
			}
			return true
		})
	}
	return out
}

// isWords says e is the words of a prose field: the field, an item of it,
// a local name holding them, or words made from them.
func isWords(e ast.Expr, words map[string]bool) bool {
	switch e := e.(type) {
	case *ast.ParenExpr:
		return isWords(e.X, words)
	case *ast.SelectorExpr:
		return proseFields[e.Sel.Name]
	case *ast.IndexExpr:
		return isWords(e.X, words)
	case *ast.SliceExpr:
		return isWords(e.X, words)
	case *ast.Ident:
		return words[e.Name]
	case *ast.CallExpr:
		name, ok := stringsCall(e)
		return ok && derived[name] && len(e.Args) > 0 && isWords(e.Args[0], words)
	}
	return false
}

// stringsCall is the name of a call of a function of package strings.
func stringsCall(c *ast.CallExpr) (string, bool) {
	s, ok := c.Fun.(*ast.SelectorExpr)
	if !ok {
		return "", false
	}
	if pkg, ok := s.X.(*ast.Ident); !ok || pkg.Name != "strings" {
		return "", false
	}
	return s.Sel.Name, true
}
