package ownership

import (
	"path"
	"regexp"
	"strings"
)

// Ruby (rbspy's frames): a file of an installed gem (".../gems/rack-3.0.8/
// lib/...", bundler's vendor/bundle, Debian's rubygems-integration) is the
// Dependency named by the gem, with its version; a file of Debian's
// vendor_ruby or of site_ruby is the Dependency named by its first path
// element; a file of Ruby's own library (".../lib/ruby/3.1.0/...") and
// "<internal:...>" are Std, as are rbspy's "[c function]" frames (Ruby's
// core written in C); a console script's "<main>" in a bin directory is
// the Dependency that installed it. Any other file is the project root's
// to decide.

// gemDir matches an installed gem's directory: group 1 is its name,
// group 2 its version.
var gemDir = regexp.MustCompile(`/gems/([^/]+?)-([0-9][^/-]*(?:-[a-z0-9_]+)*)/`)

// rbFileClass classifies a Ruby frame by its file.
func (m *Model) rbFileClass(name, file string) Class {
	c := Class{Lang: LangRuby}
	if rubyPseudoFile(file) {
		c.Kind, c.Package = Std, "ruby core"
		return c
	}
	if g := gemDir.FindStringSubmatch(file); g != nil {
		c.Kind, c.Package, c.Version = Dependency, g[1], g[2]
		c.Role = dbRole(rbDBGems, g[1])
		return c
	}
	if rest, ok := afterMarker(file, "/vendor_ruby/", "/site_ruby/"); ok {
		first, _, _ := strings.Cut(rest, "/")
		if isVersionDir(first) { // site_ruby/3.1.0/foo.rb
			_, rest, _ = strings.Cut(rest, "/")
			first, _, _ = strings.Cut(rest, "/")
		}
		c.Kind, c.Package = Dependency, strings.TrimSuffix(first, ".rb")
		if c.Package == "rubygems" {
			c.Kind = Std // Debian installs RubyGems, part of Ruby, as vendor_ruby
		}
		c.Role = dbRole(rbDBGems, c.Package)
		return c
	}
	if rest, ok := afterMarker(file, "/lib/ruby/"); ok {
		if v, rel, ok := strings.Cut(rest, "/"); ok && isVersionDir(v) {
			first, _, _ := strings.Cut(rel, "/")
			c.Kind, c.Package = Std, strings.TrimSuffix(first, ".rb")
			return c
		}
	}
	return m.scriptDoubt(c, file)
}

// isVersionDir reports whether s is a Ruby version directory ("3.1.0").
func isVersionDir(s string) bool {
	return s != "" && '0' <= s[0] && s[0] <= '9' && strings.Contains(s, ".")
}

// rubyPseudoFile reports whether file is Ruby's name for code of its core
// written in Ruby ("<internal:kernel>", "<internal:array>").
func rubyPseudoFile(file string) bool {
	return strings.HasPrefix(file, "<internal:")
}

// isRubyFile reports whether file is Ruby source.
func isRubyFile(file string) bool {
	switch path.Ext(file) {
	case ".rb", ".ru", ".rake", ".gemspec":
		return true
	}
	return false
}

// rubyGCFuncs are the Ruby VM's garbage collector's C functions.
var rubyGCFuncs = map[string]bool{
	"gc_start": true, "garbage_collect": true, "gc_marks": true, "gc_marks_rest": true,
	"gc_marks_continue": true, "gc_sweep": true, "gc_sweep_step": true, "gc_sweep_rest": true,
	"gc_mark_children": true, "rb_gc": true, "rb_gc_start": true, "gc_mark_stacked_objects": true,
	"gc_start_internal": true, "rb_objspace_call_finalizer": true,
}

// rubyEvalFuncs are the Ruby VM's bytecode loop.
var rubyEvalFuncs = map[string]bool{
	"vm_exec_core": true, "vm_exec": true, "rb_vm_exec": true, "vm_exec_handle_exception": true,
}
