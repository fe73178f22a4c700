package archtest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// goFile is one parsed non-test Go file of perflab.
type goFile struct {
	path string // from this directory: ../../internal/lab/run.go
	fset *token.FileSet
	ast  *ast.File
}

var (
	parsedOnce sync.Once
	parsed     []goFile
	parseErr   error
)

// sourceRoots are the trees the checks read.
var sourceRoots = []string{"../../internal", "../../cmd", "../../bench"}

// goFiles parses every non-test Go file under sourceRoots (testdata
// excluded) once; a file that does not parse fails the test, so no check
// passes for want of reading.
func goFiles(t *testing.T) []goFile {
	t.Helper()
	parsedOnce.Do(func() {
		fset := token.NewFileSet()
		for _, root := range sourceRoots {
			err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
				switch {
				case err != nil:
					return err
				case d.IsDir() && d.Name() == "testdata":
					return filepath.SkipDir
				case d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go"):
					return nil
				}
				f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
				if err != nil {
					return err
				}
				parsed = append(parsed, goFile{path: filepath.ToSlash(path), fset: fset, ast: f})
				return nil
			})
			if err != nil {
				parseErr = err
				return
			}
		}
	})
	if parseErr != nil {
		t.Fatalf("reading perflab's Go files: %v", parseErr)
	}
	if len(parsed) < 100 {
		t.Fatalf("read %d Go files under %v: want perflab's hundreds", len(parsed), sourceRoots)
	}
	return parsed
}

// selectors calls fn for every selector expression X.Sel of f whose X is
// an identifier (a package name, for the checks here).
func (f goFile) selectors(fn func(pkg, name string, pos token.Pos)) {
	ast.Inspect(f.ast, func(n ast.Node) bool {
		if s, ok := n.(*ast.SelectorExpr); ok {
			if id, ok := s.X.(*ast.Ident); ok {
				fn(id.Name, s.Sel.Name, s.Pos())
			}
		}
		return true
	})
}

func (f goFile) at(pos token.Pos) string {
	p := f.fset.Position(pos)
	return p.Filename + ":" + strconv.Itoa(p.Line)
}
