package gobench

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"perflab/internal/analysis"
	"perflab/internal/files"
)

// maxTestFile bounds a test file perflab parses for its benchmarks.
const maxTestFile = 16 << 20

// findBenchmarks reads the package's test files (go/parser, declarations
// only) for its benchmark functions: func BenchmarkXxx at the top level,
// as the testing package finds them.
func (p *Package) findBenchmarks(external map[string]bool) error {
	p.External = map[string]bool{}
	fset := token.NewFileSet()
	for _, path := range p.TestFiles {
		src, err := files.ReadFile(path, maxTestFile)
		if err != nil {
			return fmt.Errorf("package %s: %w", p.ImportPath, err)
		}
		f, err := parser.ParseFile(fset, path, src, parser.SkipObjectResolution)
		if err != nil {
			continue // the build reports it, with the compiler's words
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Recv != nil || !isBenchmarkName(fn.Name.Name) {
				continue
			}
			p.Benchmarks = append(p.Benchmarks, fn.Name.Name)
			if external[path] {
				p.External[fn.Name.Name] = true
			}
		}
	}
	return nil
}

// isBenchmarkName is the testing package's rule: "Benchmark" followed by
// nothing or by a character that is not a lower-case letter.
func isBenchmarkName(name string) bool {
	rest, ok := strings.CutPrefix(name, "Benchmark")
	if !ok {
		return false
	}
	if rest == "" {
		return true
	}
	r, _ := utf8.DecodeRuneInString(rest)
	return !unicode.IsLower(r)
}

// Matching returns the package's benchmarks that -bench pattern selects
// at the top level: the first '/'-separated element of the pattern,
// matched unanchored as go test does.
func (p *Package) Matching(pattern string) ([]string, error) {
	rx, err := regexp.Compile(firstElement(pattern))
	if err != nil {
		return nil, inputErr("-bench %q: %v", pattern, err)
	}
	var out []string
	for _, b := range p.Benchmarks {
		if rx.MatchString(b) {
			out = append(out, b)
		}
	}
	return out, nil
}

// firstElement is the top-level part of a -bench pattern: the text before
// the first '/' outside brackets and parentheses. Hand-written because the
// testing package keeps its splitter to itself.
func firstElement(pattern string) string {
	depth := 0
	for i := 0; i < len(pattern); i++ {
		switch pattern[i] {
		case '\\':
			i++
		case '[', '(':
			depth++
		case ']', ')':
			depth = max(0, depth-1)
		case '/':
			if depth == 0 {
				return pattern[:i]
			}
		}
	}
	return pattern
}

// Function is the Go function that defines the top-level benchmark base
// ("AlgorithmOne" for BenchmarkAlgorithmOne), as profiles name it.
func (p *Package) Function(base string) string {
	name := "Benchmark" + base
	if p.External[name] {
		return p.ImportPath + "_test." + name
	}
	return p.ImportPath + "." + name
}

// UserCode is the pattern of the user's functions: those of the package's
// module (or the package alone, outside modules), its external tests
// included, as the ownership model's --user-code.
func (p *Package) UserCode() analysis.UserCode {
	root := p.Module
	if root == "" {
		root = p.ImportPath
	}
	uc, _ := analysis.NewUserCode("^"+regexp.QuoteMeta(root)+`(_test)?([./]|$)`, "") // quoted: it compiles
	return uc
}

func joinDir(dir, f string) string {
	if filepath.IsAbs(f) {
		return f
	}
	return filepath.Join(dir, f)
}
