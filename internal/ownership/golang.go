package ownership

import (
	"path"
	"strings"
)

// Go: the package a symbol names decides. Standard-library packages are
// Std, except the runtime ("runtime", "runtime/internal/...",
// "internal/runtime/...", "runtime/cgo", "runtime/race"), its assembly
// (symbols without a package: "memeqbody", "gcWriteBarrier",
// "expandAVX512_60") and compiler-generated code ("type:.eq.main.T"),
// which are Runtime. Other packages belong to the module whose path is
// their longest prefix among those the build information lists: the main
// module (and modules replaced by a local directory) is User, the others
// Dependency with their version. Without build information the file
// tells: a path in the module cache or with "@version"
// (".../pkg/mod/google.golang.org/protobuf@v1.36.0/..."; with -trimpath
// "google.golang.org/protobuf@v1.36.0/...") or under a vendor directory
// is a dependency's; package main is the user's; then the project root
// decides; with nothing known, the user's. Type arguments
// ("slices.SortStableFunc[go.shape.[]net/http.Header]") are not part of
// the package.

// goClass classifies a Go symbol.
func (m *Model) goClass(name, file string) Class {
	pkg := goPackage(name)
	if pkg == "" || pkg == "type:" || pkg == "go:" || strings.HasPrefix(name, "type:") {
		// Assembly without a package (indexbytebody, memeqbody,
		// expandAVX512_60) and compiler-generated code (type:.eq.main.T).
		return Class{Kind: Runtime, Lang: LangGo, Package: "runtime"}
	}
	if isGoStd(pkg) {
		return goStdClass(pkg, name)
	}
	c := Class{Lang: LangGo, Package: pkg}
	if mod := m.goModule(pkg); mod != nil {
		c.Package = mod.Path
		if mod.User {
			c.Kind = User
			return c
		}
		c.Kind, c.Version = Dependency, mod.Version
		c.Role = goRole(mod.Path)
		return c
	}
	if mod, ver, ok := goModFromFile(file); ok {
		c.Kind, c.Package, c.Version = Dependency, mod, ver
		c.Role = goRole(mod)
		return c
	}
	if i := strings.Index(file, "/vendor/"); i >= 0 {
		c.Kind = Dependency
		c.Role = goRole(pkg)
		return c
	}
	if pkg == "main" {
		c.Kind = User
		return c
	}
	if m != nil && m.goMain {
		// The build information lists every module linked in; a package
		// of none of them is not the main module's.
		c.Kind = Dependency
		c.Role = goRole(pkg)
		return c
	}
	return m.doubt(c, file)
}

// goStdClass classifies a standard-library package.
func goStdClass(pkg, name string) Class {
	c := Class{Kind: Std, Lang: LangGo, Package: pkg}
	if isGoRuntime(pkg) {
		c = Class{Kind: Runtime, Lang: LangGo, Package: "runtime"}
		if IsGoGC(name) {
			c.mark = markGC
		}
	} else if pkg == "database/sql" || strings.HasPrefix(pkg, "database/sql/") {
		c.Role = Database
	}
	if IsGoMeasuring(name) {
		c.mark |= markMeasuring
	}
	return c
}

// IsGoGC reports whether the Go function name is the garbage
// collector's: one of goGCFuncs or a closure or ABI wrapper of one
// ("runtime.gcBgMarkWorker.func2", "....abi0"). A sample with such a
// frame on its stack is GC work, on every page that splits a Go
// service's CPU.
func IsGoGC(name string) bool {
	if !strings.HasPrefix(name, "runtime.") {
		return false
	}
	for {
		if goGCFuncs[name] {
			return true
		}
		i := strings.LastIndexByte(name, '.')
		if i <= len("runtime") {
			return false
		}
		name = name[:i]
	}
}

// goGCFuncs are the Go runtime's garbage-collector functions: a sample
// with one of them on its stack is GC work (a background mark worker, a
// mutator's assist, the sweeper and scavenger).
var goGCFuncs = map[string]bool{
	"runtime.gcBgMarkWorker": true, "runtime.gcAssistAlloc": true, "runtime.gcAssistAlloc1": true,
	"runtime.bgsweep": true, "runtime.bgscavenge": true, "runtime.gcDrain": true, "runtime.gcDrainN": true,
	"runtime.gcDrainMarkWorkerIdle": true, "runtime.gcDrainMarkWorkerDedicated": true, "runtime.gcDrainMarkWorkerFractional": true,
	"runtime.markroot": true, "runtime.gcStart": true, "runtime.gcMarkDone": true, "runtime.gcMarkTermination": true,
	"runtime.sweepone": true, "runtime.gcSweep": true, "runtime.scanobject": true, "runtime.scanstack": true,
	"runtime.gcResetMarkState": true, "runtime._GC": true,
}

// isGoRuntime reports whether a standard-library package is the runtime.
func isGoRuntime(pkg string) bool {
	switch {
	case pkg == "runtime", pkg == "runtime/cgo", pkg == "runtime/race":
		return true
	case strings.HasPrefix(pkg, "runtime/internal/"), strings.HasPrefix(pkg, "internal/runtime/"):
		return true
	}
	return false
}

// goModule returns the module pkg belongs to: the known module whose
// path is pkg's longest prefix.
func (m *Model) goModule(pkg string) *Module {
	if m == nil || len(m.goMods) == 0 {
		return nil
	}
	for p := pkg; p != ""; {
		if mod, ok := m.goMods[p]; ok {
			return mod
		}
		i := strings.LastIndexByte(p, '/')
		if i < 0 {
			break
		}
		p = p[:i]
	}
	return nil
}

// goPackage returns the import path of a Go symbol name:
// "net/http.(*conn).serve" -> "net/http",
// "gopkg.in/yaml%2ev3.(*parser).parse" -> "gopkg.in/yaml.v3". A generic
// instantiation's type arguments are not part of it. "" for a name
// without a package.
func goPackage(name string) string {
	if i := strings.IndexByte(name, '['); i > 0 {
		name = name[:i]
	}
	slash := strings.LastIndexByte(name, '/')
	dot := strings.IndexByte(name[slash+1:], '.')
	if dot <= 0 {
		return ""
	}
	pkg := name[:slash+1+dot]
	if strings.Contains(pkg, "%") {
		pkg = strings.ReplaceAll(strings.ReplaceAll(pkg, "%2e", "."), "%2E", ".")
	}
	return pkg
}

// goStdRoots are the first path elements of the Go standard library
// (`go list std`), cmd and vendor included. A table, not a dot-in-the-path
// test, because module paths such as "perflab" have no dot either.
var goStdRoots = map[string]bool{
	"archive": true, "bufio": true, "bytes": true, "cmp": true, "compress": true,
	"container": true, "context": true, "crypto": true, "database": true,
	"debug": true, "embed": true, "encoding": true, "errors": true,
	"expvar": true, "flag": true, "fmt": true, "go": true, "hash": true,
	"html": true, "image": true, "index": true, "internal": true, "io": true,
	"iter": true, "log": true, "maps": true, "math": true, "mime": true,
	"net": true, "os": true, "path": true, "plugin": true, "reflect": true,
	"regexp": true, "runtime": true, "slices": true, "sort": true,
	"strconv": true, "strings": true, "structs": true, "sync": true,
	"syscall": true, "testing": true, "text": true, "time": true,
	"unicode": true, "unique": true, "unsafe": true, "weak": true,
	"vendor": true, "cmd": true,
}

// isGoStd reports whether pkg is a standard-library package.
func isGoStd(pkg string) bool {
	root, _, _ := strings.Cut(pkg, "/")
	return goStdRoots[root]
}

// looksGo reports whether name has the shape of a Go symbol: an import
// path, a dot, and an identifier, a receiver or a closure after it.
func looksGo(name string) bool {
	if i := strings.IndexByte(name, '['); i > 0 {
		name = name[:i] // a generic instantiation's type arguments
	}
	if strings.ContainsAny(name, " :<>") {
		return false
	}
	pkg := goPackage(name)
	return pkg != "" && (strings.Contains(pkg, "/") || pkg == "main" || isGoStd(pkg))
}

// isGoAsm reports whether file is Go assembly of a Go tree
// ("/usr/local/go/src/runtime/asm_amd64.s", with -trimpath
// "runtime/asm_amd64.s").
func isGoAsm(file string) bool {
	if !strings.HasSuffix(file, ".s") {
		return false
	}
	if i := strings.LastIndex(file, "/src/"); i >= 0 {
		file = file[i+len("/src/"):]
	}
	root, _, ok := strings.Cut(file, "/")
	return ok && goStdRoots[root]
}

// goModFromFile reads a module path and version from a file in the
// module cache (".../pkg/mod/github.com/!burnt!sushi/toml@v1.2.0/x.go")
// or recorded with -trimpath ("github.com/BurntSushi/toml@v1.2.0/x.go").
func goModFromFile(file string) (mod, version string, ok bool) {
	at := strings.Index(file, "@v")
	if at < 0 {
		return "", "", false
	}
	start := 0
	if i := strings.LastIndex(file[:at], "/pkg/mod/"); i >= 0 {
		start = i + len("/pkg/mod/")
	} else if path.IsAbs(file) {
		return "", "", false
	}
	mod = unescapeModPath(file[start:at])
	rest := file[at+1:]
	end := strings.IndexByte(rest, '/')
	if end < 0 || mod == "" {
		return "", "", false
	}
	return mod, rest[:end], true
}

// unescapeModPath undoes the module cache's case encoding ("!b" is "B").
func unescapeModPath(p string) string {
	if !strings.Contains(p, "!") {
		return p
	}
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		if p[i] == '!' && i+1 < len(p) {
			i++
			b.WriteByte(p[i] - 'a' + 'A')
			continue
		}
		b.WriteByte(p[i])
	}
	return b.String()
}

// goAsmHelpers are the Go runtime's assembly routines that symbolise
// without a package path (in perf profiles of Go binaries, which carry no
// file), read as Go's when nothing else tells.
var goAsmHelpers = map[string]bool{
	"indexbody": true, "indexbytebody": true, "memeqbody": true, "cmpbody": true,
	"countbody": true, "gcWriteBarrier": true, "memmove": true, "memclrNoHeapPointers": true,
	"aeshashbody": true, "callRet": true, "gogo": true, "mcall": true, "morestack": true,
	"asmcgocall": true, "systemstack": true, "systemstack_switch": true,
}
