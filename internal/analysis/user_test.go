package analysis

import (
	"encoding/json"
	"testing"

	"perflab/internal/ownership"
	"perflab/internal/runfmt"
)

func TestIsUserFunc(t *testing.T) {
	for _, tc := range []struct {
		name, file string
		want       bool
	}{
		{"main.handler", "/app/main.go", true},
		{"schedule", "[kernel.kallsyms]", false},
		{"finish_task_switch.isra.0", "[kernel.kallsyms]", false},
		{"indexbody", "", false},
		{"hot_loop", "/srv/app/bin/server", true},
		{"main.(*server).handle", "", true},
		{"github.com/x/y.F", "", true},                                             // nothing known: in doubt, the user's
		{"github.com/x/y.F", "/root/go/pkg/mod/github.com/x/y@v1.2.0/y.go", false}, // a dependency: charged to the user's caller
		{"perflab/internal/demo.(*Server).search", "", true},
		{"golang.org/x/net/http2.(*Framer).ReadFrame", "/root/go/pkg/mod/golang.org/x/net@v0.30.0/http2/frame.go", false},
		{"google.golang.org/protobuf/proto.Marshal", "/root/go/pkg/mod/google.golang.org/protobuf@v1.36.1/proto/encode.go", false},
		{"google.golang.org/protobuf/internal/encoding/text.appendString", "/root/go/pkg/mod/google.golang.org/protobuf@v1.36.1/internal/encoding/text/encode.go", false},
		{"runtime.mallocgc", "/usr/lib/go/src/runtime/malloc.go", false},
		{"strings.ToLower", "", false},
		{"net/http.(*conn).serve", "", false},
		{"encoding/json.Marshal", "", false},
		{"internal/poll.(*FD).Read", "", false},
		{"vendor/golang.org/x/net/http2/hpack.(*Decoder).Write", "", false},
		{"type:.eq.main.T", "", false},
		// Generic instantiations name their type arguments, paths included.
		{"slices.SortStableFunc[go.shape.[]internal/fmtsort.KeyValue,go.shape.struct { Key reflect.Value }]", "", false},
		{"slices.partitionCmpFunc[go.shape.struct { encoding/json.v reflect.Value; encoding/json.ks string }]", "", false},
		{"main.Map[go.shape.string,net/http.Header]", "", true},
		{"github.com/x/y.Set[go.shape.int].Add", "", true},
		{"main.logResponse", "/src/app/main.go", true},
		{"handle\x00evil", "/srv/app/views.py", false},
		{"<module>", "<string>", false},
		{"gcWriteBarrier", "/usr/local/go/src/runtime/asm_amd64.s", false},
		{"my_c_helper", "/srv/app/native/helper.c", true},
		{"__tsan_read", "?", false},
		{"_ZN6__tsan18MemoryAccessRangeTILb0EEEvPNS_11ThreadStateEmmm", "?", false},
		{"_cgo_topofstack", "", false},
		{"[kernel.kallsyms]", "", false},
		{"[unknown]", "", false},
		{"0x4a5b6c", "", false},
		{"__memmove_avx_unaligned_erms", "/usr/lib/x86_64-linux-gnu/libc.so.6", false},
		{"_PyEval_EvalFrameDefault", "/usr/lib/x86_64-linux-gnu/libpython3.11.so.1.0", false},
		{"handle", "/srv/app/views.py", true},
		{"sort", "/srv/app/util.py", true},
		{"_recv_into", "/usr/lib/python3.11/socket.py", false},
		{"dumps", "/usr/local/lib/python3.12/json/__init__.py", false},
		{"render", "/srv/venv/lib/python3.12/site-packages/jinja2/environment.py", false},
		{"Flask.wsgi_app", "/usr/lib/python3/dist-packages/flask/app.py", false},
		{"<module>", "/root/.pyenv/versions/3.11.7/bin/gunicorn", false},
		{"<main>", "/usr/bin/puma", false},
		{"encode", "/root/.pyenv/versions/3.11.7/lib/python3.11/json/encoder.py", false},
		{"_PyEval_EvalFrameDefault", "/root/.pyenv/versions/3.11.7/bin/python3.11", false},
		{"rb_vm_exec", "/usr/bin/ruby3.1", false},
		{"v8::internal::Heap::CollectGarbage", "/usr/bin/node", false},
		{"Builtin:ArrayPrototypePush", "/tmp/perf-42.map", false},
		{"digestCatalog", "/srv/shop/app.js", true},
		{"perf-11058.map+0x7f472b8fd78e", "/tmp/perf-11058.map", false},
		{"Layer.handle", "/srv/shop/node_modules/express/lib/router/layer.js", false},
		{"processTicksAndRejections", "node:internal/process/task_queues", false},
		{"java.util.HashMap::get", "/tmp/perf-42.map", false},
		{"<top (required)>", "/srv/app/config.ru", true},
		{"_find_and_load", "<frozen importlib._bootstrap>", false},
		{"call", "/usr/lib/ruby/3.1.0/net/http.rb", false},
		{"call", "/srv/vendor/bundle/ruby/3.1.0/gems/rack-3.0/lib/rack.rb", false},
		{"call", "/usr/lib/ruby/vendor_ruby/rack/builder.rb", false},
		{"run", "/usr/lib/x86_64-linux-gnu/rubygems-integration/3.1.0/gems/puma-5.6.5/lib/puma/server.rb", false},
		{"index", "/srv/app/controllers/ads_controller.rb", true},
	} {
		if got := IsUserFunc(tc.name, tc.file); got != tc.want {
			t.Errorf("IsUserFunc(%q, %q) = %v, want %v", tc.name, tc.file, got, tc.want)
		}
	}
}

func TestUserCodeRootAndMatch(t *testing.T) {
	root := mustUserCode(t, "", "/srv/app")
	for _, tc := range []struct {
		name, file string
		want       bool
	}{
		{"handle", "/srv/app/views.py", true},
		{"helper", "/opt/shared/helper.py", false}, // outside the project: not the user's when in doubt
		{"helper", "lib/helper.rb", true},          // a relative name cannot be placed: the default rule
		{"main.handler", "/build/main.go", true},   // Go is decided by its package, not its file
		{"dumps", "/usr/lib/python3.11/json/__init__.py", false},
	} {
		if got := root.IsUser(tc.name, tc.file); got != tc.want {
			t.Errorf("root /srv/app: IsUser(%q, %q) = %v, want %v", tc.name, tc.file, got, tc.want)
		}
	}
	m := mustUserCode(t, `flask/|^render_`, "/srv/app")
	for _, tc := range []struct {
		name, file string
		want       bool
	}{
		{"Flask.wsgi_app", "/venv/lib/python3.11/site-packages/flask/app.py", true},
		{"render_report", "/elsewhere/app.py", true},
		{"handle", "/srv/app/views.py", false}, // --user-code decides alone
	} {
		if got := m.IsUser(tc.name, tc.file); got != tc.want {
			t.Errorf("--user-code: IsUser(%q, %q) = %v, want %v", tc.name, tc.file, got, tc.want)
		}
	}
}

// TestRunUserCode: a run's view classifies with the model its run.json
// keeps; a run made before the model was kept, with its --user-code.
func TestRunUserCode(t *testing.T) {
	m, err := ownership.New(ownership.Spec{Runtime: ownership.LangGo, Modules: []ownership.Module{
		{Lang: ownership.LangGo, Path: "example.com/shop", User: true},
		{Lang: ownership.LangGo, Path: "example.com/shop/vendored", User: true},
	}})
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	uc := RunUserCode(&runfmt.Profiling{Ownership: b})
	if !uc.IsUser("example.com/shop/vendored.F", "") || uc.IsUser("github.com/x/y.F", "") {
		t.Errorf("run.json's model not applied: %+v", uc.Model.Spec())
	}
	old := RunUserCode(&runfmt.Profiling{UserCode: `^github\.com/x/`})
	if !old.IsUser("github.com/x/y.F", "") || old.IsUser("main.handler", "") {
		t.Error("an older run's --user-code not applied")
	}
	if bad := RunUserCode(&runfmt.Profiling{UserCode: "("}); !bad.IsUser("main.handler", "") {
		t.Error("a pattern that no longer compiles should leave the default rule")
	}
}

func mustUserCode(t *testing.T, pattern, root string) UserCode {
	t.Helper()
	uc, err := NewUserCode(pattern, root)
	if err != nil {
		t.Fatal(err)
	}
	return uc
}
