package ownership

import (
	"path"
	"regexp"
	"strings"
)

// Python (py-spy's frames, with --full-filenames as perflab runs it, and
// CPython's C frames under perf or py-spy --native): a file in
// site-packages or dist-packages is the Dependency named by its first
// path element there ("flask", "sqlalchemy"); a file of the interpreter's
// own library (".../lib/python3.12/...", lib-dynload) is Std, named by
// its module ("json", "_json"), except runpy and threading's thread
// bootstrap (Thread._bootstrap, _bootstrap_inner), which are the Runtime
// as are "<frozen ...>", "<string>" (python -c, exec), "<built-in>",
// libpython, the python executable and CPython's own C sources; a console
// script's "<module>" in a bin directory is the Dependency that installed
// it ("gunicorn"). A relative file (py-spy without --full-filenames) is
// Std when its first element is a standard-library module. Any other
// file is the project root's to decide.

// pyFileClass classifies a Python frame by its file.
func (m *Model) pyFileClass(name, file string) Class {
	c := Class{Lang: LangPython}
	if strings.HasPrefix(file, "<") {
		c.Kind, c.Package = Runtime, "CPython"
		return c
	}
	if pkg, ok := afterMarker(file, "/site-packages/", "/dist-packages/"); ok {
		c.Kind, c.Package = Dependency, pyModule(pkg)
		c.Role = pyRole(c.Package, file, name)
		return c
	}
	if rest, ok := pyStdlibPath(file); ok {
		return pyStdClass(name, rest)
	}
	if !path.IsAbs(file) {
		if first, _, _ := strings.Cut(file, "/"); pyStdlib[strings.TrimSuffix(first, ".py")] {
			return pyStdClass(name, file)
		}
	}
	return m.scriptDoubt(c, file)
}

// pyStdClass classifies a file of Python's standard library, given as
// its path under lib/pythonX.Y.
func pyStdClass(name, rel string) Class {
	rel = strings.TrimPrefix(rel, "lib-dynload/")
	mod := pyModule(rel)
	c := Class{Kind: Std, Lang: LangPython, Package: mod}
	switch {
	case mod == "runpy":
		c.Kind, c.Package = Runtime, "CPython"
	case mod == "threading" && pyThreadBootstrap[name]:
		c.Kind, c.Package = Runtime, "CPython"
	case mod == "sqlite3" || mod == "_sqlite3":
		c.Role = Database
	}
	return c
}

// pyThreadBootstrap are threading.py's functions that start every thread.
var pyThreadBootstrap = map[string]bool{
	"Thread._bootstrap": true, "Thread._bootstrap_inner": true, "_bootstrap": true, "_bootstrap_inner": true,
}

// pyStdlibPath returns file's path under the interpreter's library
// directory (".../lib/python3.12/json/encoder.py" -> "json/encoder.py").
func pyStdlibPath(file string) (string, bool) {
	for _, marker := range []string{"/lib/python", "/lib64/python", "/lib/pypy", "/lib-python/"} {
		i := strings.LastIndex(file, marker)
		if i < 0 {
			continue
		}
		rest := file[i+len(marker):]
		if marker != "/lib-python/" {
			_, rest, _ = strings.Cut(rest, "/") // "3.12/json/..." -> "json/..."
		}
		if rest != "" {
			return rest, true
		}
	}
	return "", false
}

// pyModule names the top-level module or package of a path relative to
// an import root: "flask/app.py" -> "flask", "six.py" -> "six",
// "_json.cpython-311-x86_64-linux-gnu.so" -> "_json".
func pyModule(rel string) string {
	first, _, _ := strings.Cut(rel, "/")
	if i := strings.IndexByte(first, '.'); i > 0 {
		first = first[:i]
	}
	return first
}

// afterMarker returns what follows the last of the markers in file.
func afterMarker(file string, markers ...string) (string, bool) {
	best := -1
	var rest string
	for _, mk := range markers {
		if i := strings.LastIndex(file, mk); i > best {
			best, rest = i, file[i+len(mk):]
		}
	}
	return rest, best >= 0 && rest != ""
}

// pyNativeClass classifies a C frame of a Python service that carries
// nothing but its name.
func pyNativeClass(name string) Class {
	if c, ok := cpythonName(name); ok {
		return c
	}
	return Class{Kind: Unknown, Lang: LangPython}
}

// cpythonName recognises CPython's own C functions by their name
// (_PyEval_EvalFrameDefault, PyObject_Malloc, pysqlite_...): the
// interpreter's, marked as its eval loop or collector where they are.
func cpythonName(name string) (Class, bool) {
	c := Class{Kind: Runtime, Lang: LangPython, Package: "CPython"}
	switch {
	case cpythonEval[name]:
		c.mark = markInterp
	case cpythonGC[name]:
		c.mark = markGC
	case strings.HasPrefix(name, "pysqlite_"), strings.HasPrefix(name, "_pysqlite_"):
		return Class{Kind: Std, Lang: LangPython, Package: "_sqlite3", Role: Database}, true
	case strings.HasPrefix(name, "_Py"), strings.HasPrefix(name, "Py"), strings.HasPrefix(name, "_PyEval"):
	default:
		return Class{}, false
	}
	return c, true
}

// cpythonEval are CPython's bytecode evaluation loop and its entries.
var cpythonEval = map[string]bool{
	"_PyEval_EvalFrameDefault": true, "_PyEval_EvalFrame": true, "PyEval_EvalCode": true,
	"_PyEval_Vector": true, "PyEval_EvalFrameEx": true, "_PyEval_EvalCode": true,
	"_PyEval_EvalCodeWithName": true, "PyEval_EvalCodeEx": true, "_PyFunction_Vectorcall": true,
}

// cpythonGC are CPython's cyclic garbage collector.
var cpythonGC = map[string]bool{
	"gc_collect_main": true, "_PyGC_Collect": true, "gc_collect_with_callback": true,
	"gc_collect_generations": true, "gc_collect_region": true, "_PyGC_CollectNoFail": true,
	"subtract_refs": true, "move_unreachable": true, "visit_reachable": true, "update_refs": true,
}

// cpythonSource matches a file of CPython's source tree, as the
// interpreter's debug information names it
// (".../Python-3.11.7/Modules/_sqlite/cursor.c"); group 1 is the
// directory, group 2 the rest.
var cpythonSource = regexp.MustCompile(`/(?:Python-[0-9][^/]*|cpython[^/]*)/(Python|Objects|Parser|Include|Modules|Programs)/(.*)$`)

// cpythonFileClass classifies a C frame of CPython's source tree:
// Modules/_xxx is the standard library's extension module, the rest the
// interpreter.
func cpythonFileClass(name, file string) (Class, bool) {
	mm := cpythonSource.FindStringSubmatch(path.Clean(file))
	if mm == nil {
		return Class{}, false
	}
	if mm[1] == "Modules" && !strings.HasPrefix(mm[2], "gcmodule") && !strings.HasPrefix(mm[2], "main.c") {
		mod := pyModule(mm[2])
		c := Class{Kind: Std, Lang: LangPython, Package: mod}
		if strings.Contains(mod, "sqlite") {
			c.Role = Database
		}
		return c, true
	}
	c := Class{Kind: Runtime, Lang: LangPython, Package: "CPython"}
	switch {
	case strings.HasPrefix(mm[2], "ceval"), cpythonEval[name]:
		c.mark = markInterp
	case strings.HasPrefix(mm[2], "gcmodule"), strings.HasPrefix(mm[2], "gc.c"), cpythonGC[name]:
		c.mark = markGC
	}
	return c, true
}

// pyStdlib are the top-level modules of Python's standard library
// (sys.stdlib_module_names of CPython 3.11), for files py-spy names
// relative to their import root.
var pyStdlib = func() map[string]bool {
	m := map[string]bool{}
	for _, n := range strings.Fields(`__future__ _collections_abc _compat_pickle _compression _markupbase
		_osx_support _py_abc _pydecimal _pyio _sitebuiltins _strptime _threading_local _weakrefset
		abc aifc argparse ast asynchat asyncio asyncore base64 bdb bisect bz2 cProfile calendar cgi
		cgitb chunk cmd code codecs codeop collections colorsys compileall concurrent configparser
		contextlib contextvars copy copyreg crypt csv ctypes curses dataclasses datetime dbm decimal
		difflib dis distutils doctest email encodings ensurepip enum filecmp fileinput fnmatch
		fractions ftplib functools genericpath getopt getpass gettext glob graphlib gzip hashlib heapq
		hmac html http idlelib imaplib imghdr imp importlib inspect io ipaddress json keyword lib2to3
		linecache locale logging lzma mailbox mailcap mimetypes modulefinder multiprocessing netrc
		nntplib ntpath nturl2path numbers opcode operator optparse os pathlib pdb pickle pickletools
		pipes pkgutil platform plistlib poplib posixpath pprint profile pstats pty py_compile pyclbr
		pydoc pydoc_data queue quopri random re reprlib rlcompleter runpy sched secrets selectors
		shelve shlex shutil signal site smtpd smtplib sndhdr socket socketserver sqlite3 sre_compile
		sre_constants sre_parse ssl stat statistics string stringprep struct subprocess sunau symtable
		sysconfig tabnanny tarfile telnetlib tempfile textwrap this threading timeit tkinter token
		tokenize tomllib trace traceback tracemalloc tty turtle types typing unittest urllib uu uuid
		venv warnings wave weakref webbrowser wsgiref xdrlib xml xmlrpc zipapp zipfile zipimport
		zoneinfo`) {
		m[n] = true
	}
	return m
}()

// isPythonFile reports whether file is Python source or a Python pseudo
// file ("<frozen importlib._bootstrap>", "<string>", "<built-in>").
func isPythonFile(file string) bool {
	switch path.Ext(file) {
	case ".py", ".pyx", ".pyi":
		return true
	}
	return strings.HasPrefix(file, "<frozen") || file == "<string>" || file == "<built-in>" || file == "<stdin>"
}

// launcherLang is the language of a console script's top-level frame.
func launcherLang(name string) string {
	if name == "<module>" {
		return LangPython
	}
	return LangRuby
}
