package ownership

import (
	"encoding/json"
	"fmt"
	"path"
	"regexp"
	"strings"
)

// Spec is what a Model is decided from, as run.json keeps it: the
// user's overrides, the project root, the modules and crates known with
// their owner and version, and the binaries read. A run decides it once
// (Detect) and every view classifies with it.
type Spec struct {
	// Runtime is the service's runtime (a Lang* constant, "" if unknown):
	// frames that carry no other evidence are read as its.
	Runtime string `json:"runtime,omitempty"`
	// UserCode is the --user-code pattern: when set, a frame is the
	// user's exactly when its function name or file matches it.
	UserCode string `json:"user_code,omitempty"`
	// Root is the project's directory (--src, or the service's working
	// directory): a file the language's rules cannot place is the user's
	// when it lies under Root, a dependency's when it lies elsewhere.
	Root string `json:"root,omitempty"`
	// RootFrom says where Root came from ("--src", "working directory of
	// pid 42").
	RootFrom string `json:"root_from,omitempty"`
	// Modules are the Go modules and Rust crates known, from build
	// information, DWARF, go.mod and Cargo.lock.
	Modules []Module `json:"modules,omitempty"`
	// JVMPackages are the project's own JVM packages, from its sources
	// under Root ("" for the default package).
	JVMPackages []string `json:"jvm_packages,omitempty"`
	// Binaries are the executables read.
	Binaries []Binary `json:"binaries,omitempty"`
	// Notes say, once each, what could not be read and what that means.
	Notes []string `json:"notes,omitempty"`
}

// Module is a Go module or a Rust crate and whose it is.
type Module struct {
	// Lang is LangGo or LangRust.
	Lang string `json:"lang"`
	// Path is the module path ("google.golang.org/protobuf") or the
	// crate's name as Cargo spells it ("regex-automata").
	Path    string `json:"path"`
	Version string `json:"version,omitempty"`
	// User marks the user's own: the main module, a module replaced by a
	// local directory, a crate of the workspace.
	User bool `json:"user,omitempty"`
	// From says where it was read ("build info of /srv/app",
	// "Cargo.lock", "DWARF of /srv/app").
	From string `json:"from,omitempty"`
}

// Model classifies frames. It is made by New or Detect, or decoded from
// JSON; the zero Model applies the default rules with nothing known. A
// Model is not changed once made and is safe for concurrent use.
type Model struct {
	spec Spec
	re   *regexp.Regexp
	// goMods maps a Go module path to its module; rustCrates a crate's
	// name with '-' as '_' to its crate.
	goMods     map[string]*Module
	goMain     bool // a Go main module is known
	rustCrates map[string]*Module
	rustUser   bool // a user crate is known
	jvmPkgs    map[string]bool
	bins       map[string]*Binary // by path and by base name
	root       string
}

// New makes a Model from spec. The only error is an invalid UserCode
// pattern.
func New(spec Spec) (*Model, error) {
	m := &Model{spec: spec}
	if spec.UserCode != "" {
		re, err := regexp.Compile(spec.UserCode)
		if err != nil {
			return nil, fmt.Errorf("--user-code %q: %w", spec.UserCode, err)
		}
		m.re = re
	}
	m.index()
	return m, nil
}

// Spec returns what m was made from (a copy).
func (m *Model) Spec() Spec {
	if m == nil {
		return Spec{}
	}
	s := m.spec
	s.Modules = append([]Module(nil), s.Modules...)
	s.JVMPackages = append([]string(nil), s.JVMPackages...)
	s.Binaries = append([]Binary(nil), s.Binaries...)
	s.Notes = append([]string(nil), s.Notes...)
	return s
}

// MarshalJSON writes m's Spec.
func (m *Model) MarshalJSON() ([]byte, error) {
	return json.Marshal(m.spec)
}

// UnmarshalJSON reads a Spec and makes m from it, as New does.
func (m *Model) UnmarshalJSON(b []byte) error {
	var s Spec
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	n, err := New(s)
	if err != nil {
		return err
	}
	*m = *n
	return nil
}

func (m *Model) index() {
	s := &m.spec
	if s.Root != "" {
		m.root = strings.TrimRight(path.Clean(s.Root), "/")
	}
	m.goMods = map[string]*Module{}
	m.rustCrates = map[string]*Module{}
	for i := range s.Modules {
		mod := &s.Modules[i]
		switch mod.Lang {
		case LangGo:
			if old, ok := m.goMods[mod.Path]; !ok || mod.User && !old.User {
				m.goMods[mod.Path] = mod
			}
			m.goMain = m.goMain || mod.User
		case LangRust:
			k := crateKey(mod.Path)
			if old, ok := m.rustCrates[k]; !ok || mod.User && !old.User {
				m.rustCrates[k] = mod
			}
			m.rustUser = m.rustUser || mod.User
		}
	}
	m.jvmPkgs = map[string]bool{}
	for _, p := range s.JVMPackages {
		m.jvmPkgs[p] = true
	}
	m.bins = map[string]*Binary{}
	base := map[string]int{}
	for i := range s.Binaries {
		base[path.Base(s.Binaries[i].Path)]++
	}
	for i := range s.Binaries {
		b := &s.Binaries[i]
		m.bins[b.Path] = b
		if bn := path.Base(b.Path); base[bn] == 1 {
			m.bins[bn] = b
		}
	}
}

// binary returns what is known of the executable or library at file.
func (m *Model) binary(file string) *Binary {
	if m == nil || file == "" || len(m.bins) == 0 {
		return nil
	}
	if b, ok := m.bins[file]; ok {
		return b
	}
	return m.bins[path.Base(file)]
}

// runtime returns the service's runtime, "" if unknown.
func (m *Model) runtime() string {
	if m == nil {
		return ""
	}
	return m.spec.Runtime
}

// underRoot reports whether file lies under the project root; known is
// false when there is no root or file is not an absolute path.
func (m *Model) underRoot(file string) (under, known bool) {
	if m == nil || m.root == "" || !path.IsAbs(file) {
		return false, false
	}
	return strings.HasPrefix(path.Clean(file), m.root+"/"), true
}

// crateKey is how a crate is looked up: Cargo's "regex-automata" and the
// symbols' "regex_automata" are one crate.
func crateKey(name string) string {
	return strings.ReplaceAll(name, "-", "_")
}
