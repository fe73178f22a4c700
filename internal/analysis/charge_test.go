package analysis

import (
	"strings"
	"testing"

	"perflab/internal/labtest"
	"perflab/internal/ownership"
	"perflab/internal/stacks"
)

// TestHotNamesTheLibraryUnderTheUser: with the run's model (the main
// module and its dependencies from build information), a dependency is not
// user code; its cost is charged to the user's function above it, even
// through the standard library (fmt of a protobuf message), and named
// under it; a database driver's is database work.
func TestHotNamesTheLibraryUnderTheUser(t *testing.T) {
	m, err := ownership.New(ownership.Spec{Runtime: ownership.LangGo, Modules: []ownership.Module{
		{Lang: ownership.LangGo, Path: "example.com/shop", User: true},
		{Lang: ownership.LangGo, Path: "github.com/lib/pq", Version: "v1.10.9"},
		{Lang: ownership.LangGo, Path: "google.golang.org/protobuf", Version: "v1.36.1"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	cpu := labtest.NewProfile(t, "cpu/nanoseconds").
		Add("main.handler;main.render;fmt.Println;google.golang.org/protobuf/internal/encoding/text.appendString", 60e6).
		Add("main.handler;example.com/shop/store.query;github.com/lib/pq.(*conn).query;runtime.memmove", 30e6).
		Add("main.handler", 10e6).
		Profile()
	hot := HotFor(cpu, 100, 10, UserCode{Model: m})
	byName := map[string]int{}
	for i, h := range hot {
		byName[h.Function] = i
		if h.UserCode && (h.Function == "google.golang.org/protobuf/internal/encoding/text.appendString" || h.Function == "github.com/lib/pq.(*conn).query") {
			t.Errorf("dependency %s listed as user code", h.Function)
		}
	}
	if len(hot) == 0 || hot[0].Function != "main.render" || hot[0].Library != "google.golang.org/protobuf v1.36.1" || hot[0].LibraryUsPerRequest != 600 {
		t.Fatalf("first hot function %+v; want main.render with google.golang.org/protobuf v1.36.1 under it, 600 µs/request", hot)
	}
	q := hot[byName["example.com/shop/store.query"]]
	if q.Library != "github.com/lib/pq v1.10.9" || q.DatabaseUsPerRequest != 300 {
		t.Errorf("store.query %+v; want github.com/lib/pq under it and 300 µs/request of database work", q)
	}
}

// TestHotLeavesImportsOut: an import is start-up work, charged to no
// function (imports.go): the hot table lists a handler that imports lazily
// at its own cost per request, with no library under it from the import,
// and not the imported module's top level at all.
func TestHotLeavesImportsOut(t *testing.T) {
	cpu := labtest.NewProfile(t, "cpu/nanoseconds").
		Add("handle;render", 30e6).
		Add("handle;_find_and_load;_load_unlocked;<module>", 5e6).
		Add("handle;_find_and_load;_load_unlocked;exec_module", 10e6).
		Profile()
	for _, fn := range cpu.Function {
		fn.Filename = "/srv/app.py"
		if strings.HasPrefix(fn.Name, "_") || fn.Name == "exec_module" {
			fn.Filename = "<frozen importlib._bootstrap>" // as py-spy names CPython's import machinery
		}
	}
	for _, h := range HotFor(cpu, 10, 10, UserCode{}) {
		if !h.UserCode {
			continue
		}
		self := h.CPUUsPerRequest + h.AttributedUsReq
		switch {
		case h.Function == "<module>":
			t.Errorf("the import of app.py listed at %.0f µs/request", self)
		case h.Function == "handle" && (self != 0 || h.Library != ""):
			t.Errorf("handle: %.0f µs/request, library %q under it; want none of the import charged", self, h.Library)
		case h.Function == "render" && self != 3000:
			t.Errorf("render: %.0f µs/request; want 3000", self)
		}
	}
	c := NewCosts(stacks.FromProfile(cpu), 0, UserCode{}, nil)
	if c.Importing() != 15e6 {
		t.Errorf("importing %d ns; want 15 ms", c.Importing())
	}
}
