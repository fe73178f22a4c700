package analysis

import (
	"os/exec"
	"regexp"
	"strings"
	"testing"
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
		{"github.com/x/y.F", "", true},
		{"perflab/internal/demo.(*Server).search", "", true},
		{"golang.org/x/net/http2.(*Framer).ReadFrame", "", true},
		{"google.golang.org/protobuf/proto.Marshal", "", true},
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
	root := UserCode{Root: "/srv/app"}
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
			t.Errorf("UserCode{Root: /srv/app}.IsUser(%q, %q) = %v, want %v", tc.name, tc.file, got, tc.want)
		}
	}
	m := UserCode{Match: regexp.MustCompile(`flask/|^render_`), Root: "/srv/app"}
	for _, tc := range []struct {
		name, file string
		want       bool
	}{
		{"Flask.wsgi_app", "/venv/lib/python3.11/site-packages/flask/app.py", true},
		{"render_report", "/elsewhere/app.py", true},
		{"handle", "/srv/app/views.py", false}, // --user-code decides alone
	} {
		if got := m.IsUser(tc.name, tc.file); got != tc.want {
			t.Errorf("UserCode{Match: %s}.IsUser(%q, %q) = %v, want %v", m.Match, tc.name, tc.file, got, tc.want)
		}
	}
}

func TestUserCodeOverrides(t *testing.T) {
	u := UserCode{UserPrefixes: []string{"encoding/json."}, NotUser: []string{"github.com/gin-gonic/"}}
	if !u.IsUser("encoding/json.Marshal", "") {
		t.Error("UserPrefixes did not make encoding/json user code")
	}
	if u.IsUser("github.com/gin-gonic/gin.(*Engine).ServeHTTP", "") {
		t.Error("NotUser did not exclude gin")
	}
	if !u.IsUser("main.f", "") {
		t.Error("main.f should stay user code")
	}
}

// TestGoStdRoots checks the table against the installed Go's std list.
func TestGoStdRoots(t *testing.T) {
	out, err := exec.Command("go", "list", "std").Output()
	if err != nil {
		t.Skipf("go list std: %v", err)
	}
	for _, pkg := range strings.Fields(string(out)) {
		if !isGoStd(pkg + ".F") {
			t.Errorf("std package %s not recognised as standard library", pkg)
		}
	}
}
