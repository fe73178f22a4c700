package ownership

import (
	"bufio"
	"bytes"
	"io/fs"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"perflab/internal/files"
)

// Bounds of the project root's scan.
const (
	maxManifestBytes = 8 << 20 // go.mod, Cargo.lock, Cargo.toml
	maxWalkEntries   = 20000   // directory entries visited for JVM sources
	maxWalkDepth     = 16
	maxJVMSources    = 2000 // source files whose package line is read
	jvmHeadBytes     = 8 << 10
)

// rootModules reads the project's own Go module (go.mod) and its Rust
// crates (Cargo.lock: entries without a source are the workspace's, the
// others dependencies with their versions; Cargo.toml's package).
func rootModules(root string) []Module {
	var out []Module
	if b, err := files.ReadFile(filepath.Join(root, "go.mod"), maxManifestBytes); err == nil {
		if mod := goModPath(b); mod != "" {
			out = append(out, Module{Lang: LangGo, Path: mod, User: true, From: "go.mod"})
		}
	}
	if b, err := files.ReadFile(filepath.Join(root, "Cargo.lock"), maxManifestBytes); err == nil {
		out = append(out, ParseCargoLock(b)...)
	}
	if b, err := files.ReadFile(filepath.Join(root, "Cargo.toml"), maxManifestBytes); err == nil {
		if name := cargoPackageName(b); name != "" {
			out = append(out, Module{Lang: LangRust, Path: name, User: true, From: "Cargo.toml"})
		}
	}
	return out
}

// goModPath returns the module path a go.mod declares.
func goModPath(b []byte) string {
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) >= 2 && f[0] == "module" {
			return strings.Trim(f[1], `"`)
		}
	}
	return ""
}

// ParseCargoLock reads the packages of a Cargo.lock: each [[package]]
// with its name and version; one without a source is a crate of the
// workspace (the user's), one with a source a dependency. Lines that fit
// no shape are skipped (Cargo.lock is TOML as cargo writes it; a full
// TOML parser is not needed for its three keys).
func ParseCargoLock(b []byte) []Module {
	var out []Module
	var cur *Module
	hasSource := false
	flush := func() {
		if cur != nil && cur.Path != "" {
			cur.User = !hasSource
			out = append(out, *cur)
		}
		cur, hasSource = nil, false
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "[[package]]":
			flush()
			cur = &Module{Lang: LangRust, From: "Cargo.lock"}
		case strings.HasPrefix(line, "["):
			flush()
		case cur == nil:
		default:
			k, v, ok := tomlString(line)
			switch {
			case !ok:
			case k == "name":
				cur.Path = v
			case k == "version":
				cur.Version = v
			case k == "source":
				hasSource = true
			}
		}
	}
	flush()
	return out
}

// tomlString reads `key = "value"`.
func tomlString(line string) (key, value string, ok bool) {
	k, v, found := strings.Cut(line, "=")
	if !found {
		return "", "", false
	}
	v = strings.TrimSpace(v)
	if len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' {
		return "", "", false
	}
	return strings.TrimSpace(k), v[1 : len(v)-1], true
}

// cargoPackageName returns the name of Cargo.toml's [package].
func cargoPackageName(b []byte) string {
	in := false
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "[") {
			in = line == "[package]"
			continue
		}
		if k, v, ok := tomlString(line); in && ok && k == "name" {
			return v
		}
	}
	return ""
}

// jvmPackageDecl matches a Java, Kotlin, Scala or Groovy package
// declaration.
var jvmPackageDecl = regexp.MustCompile(`(?m)^\s*package\s+([A-Za-z_][\w.]*)\s*;?\s*$`)

// skipDirs are directories the JVM scan does not enter.
var skipDirs = map[string]bool{
	".git": true, "node_modules": true, "target": true, "build": true, ".gradle": true, ".idea": true,
	"vendor": true, ".venv": true, "venv": true, "__pycache__": true, ".m2": true, "out": true,
}

// jvmPackages reads the packages the project's JVM sources declare, in a
// bounded walk of root; a source without a package line is of the
// default package (""). None when the project has no JVM sources.
func jvmPackages(root string) []string {
	pkgs := map[string]bool{}
	entries, sources := 0, 0
	rootDepth := strings.Count(filepath.Clean(root), string(filepath.Separator))
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		entries++
		switch {
		case entries > maxWalkEntries || sources >= maxJVMSources:
			return filepath.SkipAll
		case err != nil:
			if d != nil && d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		case d.IsDir():
			if p != root && (skipDirs[d.Name()] || strings.Count(p, string(filepath.Separator))-rootDepth > maxWalkDepth) {
				return filepath.SkipDir
			}
			return nil
		case d.Type().IsRegular() && isJVMFile(p):
			sources++
			pkgs[sourcePackage(p)] = true
		}
		return nil
	})
	out := make([]string, 0, len(pkgs))
	for p := range pkgs {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// sourcePackage reads the package a JVM source declares in its first
// bytes; "" for the default package or an unreadable file.
func sourcePackage(p string) string {
	f, err := files.Open(p, 0)
	if err != nil {
		return ""
	}
	defer f.Close()
	head := make([]byte, jvmHeadBytes)
	n, _ := f.Read(head)
	if m := jvmPackageDecl.FindSubmatch(head[:n]); m != nil {
		return string(m[1])
	}
	return ""
}
