package archtest

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"perflab/internal/runfmt"
)

// storedRuns are run.json files of earlier perflabs (schemas 2 and 4: a
// demo run, a Go service at its budget on a busy machine), read and
// written again by this one.
var storedRuns = []string{
	"../report/testdata/page/demo.json",
	"../report/testdata/page/fmtprint.json",
	"../report/testdata/schema2/run.json",
}

// notProse are the keys whose values may read like words without being
// perflab's: what it quotes of the service and the machine (names,
// commands, URLs, files, functions, source lines, a tool's state, the
// service's output, a git subject, an error of the load's requests), and
// where a value came from ("build info of /proc/5305/exe").
var notProse = map[string]string{
	"url": "a URL", "urls": "the load's targets: METHOD URL", "target": "a load target: METHOD URL",
	"targets": "load targets: METHOD URL", "command": "the service's command line", "cmdline": "a process's command line",
	"exe": "an executable's path", "name": "a process's or a run's name", "function": "a function's name",
	"functions": "functions' names", "file": "a file", "stack": "a stack's frames: function file:line",
	"state": "a thread's state as its tool printed it (IO wait, S (sleeping))", "module": "a binary or a module",
	"library": "a library and its version", "package": "a package and its version", "hostname": "the host's name",
	"kernel": "the kernel's release", "subject": "a git commit's subject", "build": "the command that built a revision",
	"last_lines": "the program's own last lines of output", "exit_status": "the os package's words for a process's exit",
	"error": "a tool's error, quoted", "error_samples": "a load error's text, quoted", "from": "where a module was found",
	"root_from": "where the project's root was found", "gomaxprocs_source": "where GOMAXPROCS was read: gctrace, execution trace",
	"header":         "an HTTP header given to the load",
	"partial_reason": "the error that ended a partial run, quoted (a key scripts read, kept since schema 1)",
}

// TestRunJSONHoldsNoProse: a run written by this perflab holds words only
// under keys that end in note, notes or text; elsewhere its strings are
// words of a vocabulary, names, numbers or what notProse allows. The
// stored runs of earlier perflabs are read and written again: their words
// move to their notes, and what this perflab computes (the quality's
// causes, the degradations, the stacks' reach) is data.
func TestRunJSONHoldsNoProse(t *testing.T) {
	for _, path := range storedRuns {
		path := filepath.FromSlash(path)
		stored, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		r, err := runfmt.Read(bytes.NewReader(stored))
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		var b bytes.Buffer
		if err := runfmt.Write(&b, r); err != nil {
			t.Fatal(err)
		}
		n, words := proseOutsideNotes(t, b.Bytes())
		for _, w := range words {
			t.Errorf("%s: %s: words outside a note (type it, or keep it under a key ending in note)", path, w)
		}
		if n < 100 {
			t.Errorf("%s: %d strings walked; want a whole run's", path, n)
		}
		// As the earlier perflab wrote it, the run has words elsewhere
		// (its quality's summary): what this perflab moved.
		if _, words := proseOutsideNotes(t, stored); len(words) == 0 {
			t.Errorf("%s as stored: no words found outside its notes; want its quality's summary at least", path)
		}
	}
}

// proseOutsideNotes walks run.json b and returns how many strings it
// holds and those that read as words outside a note, each with its path.
func proseOutsideNotes(t *testing.T, b []byte) (int, []string) {
	t.Helper()
	var doc any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	n, words := 0, []string(nil)
	walkStrings(doc, reflect.TypeFor[runfmt.Run](), "", "", func(path, key, s string) {
		n++
		if prose(s) && !proseAllowed(key) {
			words = append(words, path+" = "+strconv.Quote(s))
		}
	})
	return n, words
}

// TestProseHeuristic: what reads as words and what does not.
func TestProseHeuristic(t *testing.T) {
	for s, want := range map[string]bool{
		"NOISY — other processes used 1.46 of 2 cores": true, "not asked for": true,
		"the kernel did not time it: the load kept its connections open": true,
		"GET http://127.0.0.1:35419/api/item?id=7":                       false, "main.(*store).Put": false, "/usr/lib/go/src/net/http/server.go": false,
		"cgroup-v2": false, "other-processes": false, "go1.26": false, "127.0.0.1:9999": false, "sync.(*Mutex).Lock": false,
		"google.golang.org/protobuf v1.36.12": false, "./tolower -addr 127.0.0.1:8080": false, "p99<100ms,errors<1%": false,
	} {
		if got := prose(s); got != want {
			t.Errorf("prose(%q) = %v; want %v", s, got, want)
		}
	}
}

// proseAllowed says whether words may stand under key: a note, a text,
// or one of notProse.
func proseAllowed(key string) bool {
	_, ok := notProse[key]
	return ok || strings.HasSuffix(key, "note") || strings.HasSuffix(key, "notes") || strings.HasSuffix(key, "text")
}

// prose says whether s reads as words: at least two words of three or
// more lower-case letters, apart from URLs, paths, code and flags.
func prose(s string) bool {
	n := 0
	for w := range strings.FieldsSeq(s) {
		w = strings.TrimLeft(w, "(\"'")
		w = strings.TrimRight(w, ",;:.)\"'")
		if len(w) >= 3 && strings.IndexFunc(w, func(r rune) bool { return !unicode.IsLower(r) }) < 0 {
			n++
		}
	}
	return n >= 2
}

// walkStrings calls fn with every string of doc, a JSON document decoded
// as any that encodes a value of type t, with the key of the field that
// holds it: a map's values are their field's, a list's elements their
// list's.
func walkStrings(doc any, t reflect.Type, path, key string, fn func(path, key, s string)) {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch v := doc.(type) {
	case string:
		fn(path, key, v)
	case []any:
		var el reflect.Type
		if t != nil && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) {
			el = t.Elem()
		}
		for i, x := range v {
			walkStrings(x, el, path+"["+strconv.Itoa(i)+"]", key, fn)
		}
	case map[string]any:
		if t != nil && t.Kind() == reflect.Map {
			for k, x := range v {
				// A map's key names its value when it is a name that may
				// hold words (a finding's setting gomaxprocs_source).
				mk := key
				if proseAllowed(k) {
					mk = k
				}
				walkStrings(x, t.Elem(), path+"["+k+"]", mk, fn)
			}
			return
		}
		fields := jsonFields(t)
		for k, x := range v {
			sub := k
			if path != "" {
				sub = path + "." + k
			}
			walkStrings(x, fields[k], sub, k, fn)
		}
	}
}

// jsonFields are the types of a struct's fields by JSON key, those of
// embedded structs included; nil for a type that is not a struct (raw
// JSON, whose objects' keys are taken for fields').
func jsonFields(t reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	if t == nil || t.Kind() != reflect.Struct {
		return out
	}
	for i := range t.NumField() {
		f := t.Field(i)
		key, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch {
		case !f.IsExported() || key == "-":
		case f.Anonymous && key == "":
			for k, ft := range jsonFields(f.Type) {
				out[k] = ft
			}
		case key == "":
			out[f.Name] = f.Type
		default:
			out[key] = f.Type
		}
	}
	return out
}
