package ownership

import (
	"os/exec"
	"strings"
	"testing"
)

// classCase is a frame and what it must be classified as. Package and
// Version are checked when set; "-" wants them empty.
type classCase struct {
	f       Frame
	kind    Kind
	pkg     string
	version string
	role    Role
}

func checkClasses(t *testing.T, m *Model, cases []classCase) {
	t.Helper()
	for _, tc := range cases {
		c := m.Classify(tc.f)
		ok := c.Kind == tc.kind && c.Role == tc.role &&
			(tc.pkg == "" || tc.pkg == c.Package || tc.pkg == "-" && c.Package == "") &&
			(tc.version == "" || tc.version == c.Version || tc.version == "-" && c.Version == "")
		if !ok {
			t.Errorf("Classify(%q, %q, %q) = %v %q %q role %q, want %v %q %q role %q",
				tc.f.Func, tc.f.File, tc.f.Binary, c.Kind, c.Package, c.Version, c.Role, tc.kind, tc.pkg, tc.version, tc.role)
		}
	}
}

// TestGoWithBuildInfo: the main module is the user's, other modules are
// dependencies with their version, std is std, the runtime and its
// assembly the runtime's.
func TestGoWithBuildInfo(t *testing.T) {
	m := mustNew(t, Spec{Runtime: LangGo, Modules: []Module{
		{Lang: LangGo, Path: "example.com/shop", User: true},
		{Lang: LangGo, Path: "google.golang.org/protobuf", Version: "v1.36.12"},
		{Lang: LangGo, Path: "github.com/klauspost/compress", Version: "v1.17.9"},
		{Lang: LangGo, Path: "github.com/jackc/pgx/v5", Version: "v5.6.0"},
		{Lang: LangGo, Path: "example.com/shop/lib", User: true}, // replaced by ../lib
	}})
	checkClasses(t, m, []classCase{
		{Frame{Func: "main.logResponse", File: "/src/shop/main.go"}, User, "main", "", NoRole},
		{Frame{Func: "example.com/shop/internal/api.(*Server).handle", File: "/src/shop/internal/api/api.go"}, User, "example.com/shop", "", NoRole},
		{Frame{Func: "example.com/shop/lib.Sum"}, User, "example.com/shop/lib", "", NoRole},
		{Frame{Func: "google.golang.org/protobuf/internal/encoding/text.appendString", File: "/root/go/pkg/mod/google.golang.org/protobuf@v1.36.12/internal/encoding/text/encode.go"}, Dependency, "google.golang.org/protobuf", "v1.36.12", NoRole},
		{Frame{Func: "github.com/klauspost/compress/flate.(*compressor).deflateLazy"}, Dependency, "github.com/klauspost/compress", "v1.17.9", NoRole},
		{Frame{Func: "github.com/jackc/pgx/v5.(*Conn).Query"}, Dependency, "github.com/jackc/pgx/v5", "v5.6.0", Database},
		{Frame{Func: "fmt.Fprintln"}, Std, "fmt", "", NoRole},
		{Frame{Func: "database/sql.(*DB).QueryContext"}, Std, "database/sql", "", Database},
		{Frame{Func: "net/http.(*conn).serve"}, Std, "net/http", "", NoRole},
		{Frame{Func: "vendor/golang.org/x/net/http2/hpack.(*Decoder).Write"}, Std, "", "", NoRole},
		{Frame{Func: "internal/bytealg.IndexByteString"}, Std, "internal/bytealg", "", NoRole},
		{Frame{Func: "runtime.mallocgc", File: "/usr/local/go/src/runtime/malloc.go"}, Runtime, "runtime", "", NoRole},
		{Frame{Func: "internal/runtime/syscall/linux.Syscall6"}, Runtime, "runtime", "", NoRole},
		{Frame{Func: "runtime/pprof.(*profileBuilder).build"}, Std, "runtime/pprof", "", NoRole},
		{Frame{Func: "expandAVX512_60", File: "/usr/local/go/src/internal/runtime/gc/scan/expand_amd64.s"}, Runtime, "runtime", "", NoRole},
		{Frame{Func: "expandAVX512_60"}, Runtime, "runtime", "", NoRole},
		{Frame{Func: "gcWriteBarrier", File: "runtime/asm_amd64.s"}, Runtime, "runtime", "", NoRole},
		{Frame{Func: "indexbytebody"}, Runtime, "runtime", "", NoRole},
		{Frame{Func: "type:.eq.main.T"}, Runtime, "runtime", "", NoRole},
		// Generic instantiations classify by their package, not a "/" in
		// their type arguments.
		{Frame{Func: "slices.SortStableFunc[go.shape.[]internal/fmtsort.KeyValue,go.shape.struct { Key reflect.Value }]"}, Std, "slices", "", NoRole},
		{Frame{Func: "slices.partitionCmpFunc[go.shape.struct { encoding/json.v reflect.Value; encoding/json.ks string }]"}, Std, "slices", "", NoRole},
		{Frame{Func: "main.Map[go.shape.string,net/http.Header]"}, User, "main", "", NoRole},
		{Frame{Func: "example.com/shop/cache.(*LRU[go.shape.string,google.golang.org/protobuf/proto.Message]).Get"}, User, "example.com/shop", "", NoRole},
		{Frame{Func: "google.golang.org/protobuf/proto.Clone[go.shape.*main.Req]"}, Dependency, "google.golang.org/protobuf", "", NoRole},
		// A package of no module the build info lists is not the user's.
		{Frame{Func: "github.com/other/thing.F"}, Dependency, "github.com/other/thing", "", NoRole},
		// Names a profile cannot attribute.
		{Frame{Func: "main.f\x00\x01"}, Unknown, "", "", NoRole},
		{Frame{Func: "bad\tname"}, Unknown, "", "", NoRole},
	})
}

// TestGoWithoutBuildInfo: the file decides (module cache, -trimpath
// paths, vendor), then package main, then the root.
func TestGoWithoutBuildInfo(t *testing.T) {
	var zero Model
	m := &zero
	checkClasses(t, m, []classCase{
		{Frame{Func: "google.golang.org/protobuf/internal/encoding/text.appendString", File: "/root/go/pkg/mod/google.golang.org/protobuf@v1.36.12/internal/encoding/text/encode.go"}, Dependency, "google.golang.org/protobuf", "v1.36.12", NoRole},
		{Frame{Func: "github.com/BurntSushi/toml.(*decoder).unify", File: "/home/u/go/pkg/mod/github.com/!burnt!sushi/toml@v1.4.0/decode.go"}, Dependency, "github.com/BurntSushi/toml", "v1.4.0", NoRole},
		{Frame{Func: "github.com/BurntSushi/toml.(*decoder).unify", File: "github.com/BurntSushi/toml@v1.4.0/decode.go"}, Dependency, "github.com/BurntSushi/toml", "v1.4.0", NoRole},
		{Frame{Func: "github.com/acme/shop/api.Handle", File: "/src/shop/api/api.go"}, User, "github.com/acme/shop/api", "", NoRole},
		{Frame{Func: "github.com/acme/shop/api.Handle", File: "github.com/acme/shop/api/api.go"}, User, "", "", NoRole},
		{Frame{Func: "github.com/gin-gonic/gin.(*Engine).ServeHTTP", File: "/src/shop/vendor/github.com/gin-gonic/gin/gin.go"}, Dependency, "", "", NoRole},
		{Frame{Func: "main.main", File: "example.com/tp/main.go"}, User, "main", "", NoRole},
		{Frame{Func: "runtime.main", File: "runtime/proc.go"}, Runtime, "runtime", "", NoRole},
		{Frame{Func: "gopkg.in/yaml%2ev3.(*parser).parse", File: "/root/go/pkg/mod/gopkg.in/yaml.v3@v3.0.1/parserc.go"}, Dependency, "gopkg.in/yaml.v3", "v3.0.1", NoRole},
		{Frame{Func: "perflab/internal/demo.(*Server).search"}, User, "", "", NoRole},
	})
	// With a root, a Go file elsewhere is not the user's.
	r := mustNew(t, Spec{Runtime: LangGo, Root: "/src/shop"})
	checkClasses(t, r, []classCase{
		{Frame{Func: "github.com/acme/shop/api.Handle", File: "/src/shop/api/api.go"}, User, "", "", NoRole},
		{Frame{Func: "github.com/acme/tool.Run", File: "/opt/gopath/src/github.com/acme/tool/run.go"}, Dependency, "", "", NoRole},
	})
}

// TestGoStdRoots checks the table against the installed Go's std list.
func TestGoStdRoots(t *testing.T) {
	out, err := exec.Command("go", "list", "std").Output()
	if err != nil {
		t.Skipf("go list std: %v", err)
	}
	var zero Model
	for _, pkg := range strings.Fields(string(out)) {
		c := zero.Classify(Frame{Func: pkg + ".F"})
		if c.Kind != Std && c.Kind != Runtime {
			t.Errorf("std package %s classified %v", pkg, c.Kind)
		}
	}
}

// TestUserCodeDecidesAlone: --user-code makes what it matches the user's
// and nothing else, whatever the default rules say.
func TestUserCodeDecidesAlone(t *testing.T) {
	m := mustNew(t, Spec{UserCode: `flask/|^render_|summarize`, Root: "/srv/app"})
	checkClasses(t, m, []classCase{
		{Frame{Func: "Flask.wsgi_app", File: "/venv/lib/python3.11/site-packages/flask/app.py"}, User, "flask", "", NoRole},
		{Frame{Func: "render_report", File: "/elsewhere/app.py"}, User, "", "", NoRole},
		{Frame{Func: "handle", File: "/srv/app/views.py"}, Dependency, "", "", NoRole},
		{Frame{Func: "axumsvc::summarize", Binary: "/srv/app/target/release/axumsvc"}, User, "", "", NoRole},
		{Frame{Func: "summarize\x00", File: "/srv/app/app.py"}, Unknown, "", "", NoRole},
		{Frame{Func: "[unknown]"}, Unknown, "", "", NoRole},
	})
	if _, err := New(Spec{UserCode: "("}); err == nil || !strings.Contains(err.Error(), "--user-code") {
		t.Errorf("New with an invalid pattern: %v, want an error naming --user-code", err)
	}
}

// TestPython: names and paths as py-spy (--full-filenames, and without)
// and py-spy --native print them.
func TestPython(t *testing.T) {
	m := mustNew(t, Spec{Runtime: LangPython, Root: "/srv/app"})
	const py = "/root/.pyenv/versions/3.11.7/lib/python3.11/"
	checkClasses(t, m, []classCase{
		{Frame{Func: "build_report", File: "/srv/app/app.py"}, User, "app", "", NoRole},
		{Frame{Func: "Thread._bootstrap", File: py + "threading.py"}, Runtime, "CPython", "", NoRole},
		{Frame{Func: "Thread._bootstrap_inner", File: py + "threading.py"}, Runtime, "CPython", "", NoRole},
		{Frame{Func: "Thread.run", File: py + "threading.py"}, Std, "threading", "", NoRole},
		{Frame{Func: "_run_module_as_main", File: py + "runpy.py"}, Runtime, "CPython", "", NoRole},
		{Frame{Func: "<module>", File: "<string>"}, Runtime, "CPython", "", NoRole},
		{Frame{Func: "_find_and_load", File: "<frozen importlib._bootstrap>"}, Runtime, "CPython", "", NoRole},
		{Frame{Func: "_run_module_as_main", File: "<frozen runpy>"}, Runtime, "CPython", "", NoRole},
		{Frame{Func: "dumps", File: py + "json/__init__.py"}, Std, "json", "", NoRole},
		{Frame{Func: "JSONEncoder.iterencode", File: py + "json/encoder.py"}, Std, "json", "", NoRole},
		{Frame{Func: "Connection.execute", File: py + "sqlite3/dbapi2.py"}, Std, "sqlite3", "", Database},
		{Frame{Func: "<module>", File: "/root/.pyenv/versions/3.11.7/bin/gunicorn"}, Dependency, "gunicorn", "", NoRole},
		{Frame{Func: "Flask.wsgi_app", File: "/srv/app/.venv/lib/python3.12/site-packages/flask/app.py"}, Dependency, "flask", "", NoRole},
		{Frame{Func: "Flask.wsgi_app", File: "/usr/lib/python3/dist-packages/flask/app.py"}, Dependency, "flask", "", NoRole},
		{Frame{Func: "Cursor.execute", File: "/venv/lib/python3.12/site-packages/psycopg/cursor.py"}, Dependency, "psycopg", "", Database},
		{Frame{Func: "Cursor.execute", File: "/venv/lib/python3.12/site-packages/pymysql/cursors.py"}, Dependency, "pymysql", "", Database},
		{Frame{Func: "QuerySet._fetch_all", File: "/venv/lib/python3.12/site-packages/django/db/models/query.py"}, Dependency, "django", "", Database},
		{Frame{Func: "View.dispatch", File: "/venv/lib/python3.12/site-packages/django/views/generic/base.py"}, Dependency, "django", "", NoRole},
		{Frame{Func: "Session.execute", File: "/venv/lib/python3.12/site-packages/sqlalchemy/orm/session.py"}, Dependency, "sqlalchemy", "", Database},
		{Frame{Func: "helper", File: "/opt/shared/helper.py"}, Dependency, "shared", "", NoRole},
		// py-spy without --full-filenames: relative to the import root.
		{Frame{Func: "dumps", File: "json/__init__.py"}, Std, "json", "", NoRole},
		{Frame{Func: "Thread._bootstrap", File: "threading.py"}, Runtime, "CPython", "", NoRole},
		{Frame{Func: "encode", File: "busy3.py"}, User, "", "", NoRole},
		// py-spy --native: CPython's C frames and the libraries'.
		{Frame{Func: "_pysqlite_query_execute", File: "/tmp/python-build.20260509073455.222/Python-3.11.7/Modules/_sqlite/cursor.c"}, Std, "_sqlite", "", Database},
		{Frame{Func: "_PyEval_EvalFrameDefault", File: "/tmp/python-build.1/Python-3.11.7/Python/ceval.c"}, Runtime, "CPython", "", NoRole},
		{Frame{Func: "thread_run", File: "/root/.pyenv/versions/3.11.7/lib/libpython3.11.so.1.0"}, Runtime, "CPython", "", NoRole},
		{Frame{Func: "sqlite3VdbeExec", File: "/usr/lib/x86_64-linux-gnu/libsqlite3.so.0.8.6"}, Dependency, "libsqlite3", "", Database},
		{Frame{Func: "encoder_listencode_obj.isra.0", File: py + "lib-dynload/_json.cpython-311-x86_64-linux-gnu.so"}, Std, "_json", "", NoRole},
		{Frame{Func: "_PyEval_EvalFrameDefault", File: "/root/.pyenv/versions/3.11.7/bin/python3.11"}, Runtime, "CPython", "", NoRole},
		{Frame{File: "/usr/lib/x86_64-linux-gnu/libc.so.6", Func: "0x7f63faf278ec"}, Runtime, "libc", "", NoRole},
		// NUL bytes in a name: never the user's.
		{Frame{Func: "evil\x00name", File: "/srv/app/app.py"}, Unknown, "", "", NoRole},
	})
}

// TestRuby: rbspy's frames.
func TestRuby(t *testing.T) {
	m := mustNew(t, Spec{Runtime: LangRuby, Root: "/srv/app"})
	checkClasses(t, m, []classCase{
		{Frame{Func: "build_table", File: "/srv/app/app.rb"}, User, "app", "", NoRole},
		{Frame{Func: "index", File: "/srv/app/app/controllers/ads_controller.rb"}, User, "", "", NoRole},
		{Frame{Func: "parse_query", File: "/usr/share/rubygems-integration/all/gems/rack-2.2.22/lib/rack/query_parser.rb"}, Dependency, "rack", "2.2.22", NoRole},
		{Frame{Func: "call", File: "/srv/vendor/bundle/ruby/3.1.0/gems/rack-3.0.8/lib/rack.rb"}, Dependency, "rack", "3.0.8", NoRole},
		{Frame{Func: "each", File: "/usr/lib/ruby/gems/3.1.0/gems/prime-0.1.2/lib/prime.rb"}, Dependency, "prime", "0.1.2", NoRole},
		{Frame{Func: "exec_queries", File: "/srv/vendor/bundle/ruby/3.3.0/gems/activerecord-7.1.3.2/lib/active_record/relation.rb"}, Dependency, "activerecord", "7.1.3.2", Database},
		{Frame{Func: "run", File: "/usr/lib/x86_64-linux-gnu/rubygems-integration/3.1.0/gems/puma-5.6.5/lib/puma/server.rb"}, Dependency, "puma", "5.6.5", NoRole},
		{Frame{Func: "split", File: "/usr/lib/ruby/3.1.0/uri/rfc2396_parser.rb"}, Std, "uri", "", NoRole},
		{Frame{Func: "generate", File: "/usr/lib/ruby/3.1.0/json/common.rb"}, Std, "json", "", NoRole},
		{Frame{Func: "call", File: "/usr/lib/ruby/vendor_ruby/rack/builder.rb"}, Dependency, "rack", "", NoRole},
		{Frame{Func: "require", File: "/usr/lib/ruby/vendor_ruby/rubygems.rb"}, Std, "rubygems", "", NoRole},
		{Frame{Func: "tap", File: "<internal:kernel>"}, Std, "ruby core", "", NoRole},
		{Frame{Func: "[c function] (unknown)"}, Std, "ruby core", "", NoRole},
		{Frame{Func: "<main>", File: "/usr/bin/puma"}, Dependency, "puma", "", NoRole},
		{Frame{Func: "<top (required)>", File: "/srv/app/config.ru"}, User, "", "", NoRole},
		{Frame{Func: "helper", File: "/opt/lib/helper.rb"}, Dependency, "lib", "", NoRole},
	})
}

// TestNode: frames of node --perf-basic-prof under perf, raw and as
// perflab names them.
func TestNode(t *testing.T) {
	m := mustNew(t, Spec{Runtime: LangNode, Root: "/srv/shop"})
	const mp = "/tmp/perf-26371.map"
	checkClasses(t, m, []classCase{
		{Frame{Func: "summarize", File: "/srv/shop/app.js"}, User, "app", "", NoRole},
		{Frame{Func: "JS:*summarize /srv/shop/app.js:2:19", File: mp, Binary: mp}, User, "app", "", NoRole},
		{Frame{Func: "(anonymous):1", File: "/srv/shop/app.js"}, User, "", "", NoRole},
		{Frame{Func: "JS:^requireBuiltin node:internal/bootstrap/realm:420:24", File: mp, Binary: mp}, Std, "node", "", NoRole},
		{Frame{Func: "processTicksAndRejections", File: "node:internal/process/task_queues"}, Std, "node", "", NoRole},
		{Frame{Func: "Layer.handle", File: "/srv/shop/node_modules/express/lib/router/layer.js"}, Dependency, "express", "", NoRole},
		{Frame{Func: "PrismaClient._request", File: "/srv/shop/node_modules/@prisma/client/runtime/library.js"}, Dependency, "@prisma/client", "", Database},
		{Frame{Func: "Client.query", File: "/srv/shop/node_modules/pg/lib/client.js"}, Dependency, "pg", "", Database},
		{Frame{Func: "Builtins_InterpreterEntryTrampoline", File: "/usr/bin/node", Binary: "/usr/bin/node"}, Runtime, "V8", "", NoRole},
		{Frame{Func: "v8::internal::Builtin_JsonStringify", File: "/usr/bin/node", Binary: "/usr/bin/node"}, Runtime, "V8", "", NoRole},
		{Frame{Func: "node::Start", File: "/usr/bin/node", Binary: "/usr/bin/node"}, Runtime, "node", "", NoRole},
		{Frame{Func: "asn1_item_embed_d2i", File: "/usr/bin/node", Binary: "/usr/bin/node"}, Runtime, "node", "", NoRole},
		{Frame{Func: "Builtin:ArrayPrototypePush", File: mp, Binary: mp}, Runtime, "V8", "", NoRole},
		{Frame{Func: "v8::internal::Heap::CollectGarbage", File: "/usr/bin/node"}, Runtime, "V8", "", NoRole},
		{Frame{File: mp, Binary: mp}, Unknown, "", "", NoRole},
		{Frame{Func: "(program)"}, Runtime, "V8", "", NoRole},
		{Frame{Func: "(garbage collector)"}, Runtime, "V8", "", NoRole},
		{Frame{Func: "(root)"}, Unknown, "", "", NoRole},
		{Frame{Func: "perf-11058.map+0x7f472b8fd78e", File: "/tmp/perf-11058.map"}, Unknown, "", "", NoRole},
	})
}

// TestJVM: a JVM perf map's names (DumpPerfMapAtExit), as perflab
// shortens them, perf-map-agent's and async-profiler's, and libjvm's.
func TestJVM(t *testing.T) {
	m := mustNew(t, Spec{Runtime: LangJVM})
	const mp = "/tmp/perf-25393.map"
	const jvm = "/usr/lib/jvm/java-17-openjdk-amd64/lib/server/libjvm.so"
	checkClasses(t, m, []classCase{
		{Frame{Func: "int Server.handle(java.lang.String)", File: mp, Binary: mp}, User, "Server", "", NoRole},
		{Frame{Func: "Server.handle", File: mp, Binary: mp}, User, "", "", NoRole},
		{Frame{Func: "java.lang.Object Server$$Lambda$1/0x00007f602c000a08.apply(java.lang.Object)", File: mp, Binary: mp}, User, "", "", NoRole},
		{Frame{Func: "void java.util.regex.Pattern.compile()", File: mp, Binary: mp}, Std, "java.util.regex", "", NoRole},
		{Frame{Func: "java.util.regex.Pattern$Node java.util.regex.Pattern.sequence(java.util.regex.Pattern$Node)", File: mp, Binary: mp}, Std, "java.util.regex", "", NoRole},
		{Frame{Func: "java.lang.Object java.lang.invoke.LambdaForm$MH/0x0000000800c01234.invoke(java.lang.Object)", File: mp, Binary: mp}, Std, "java.lang.invoke", "", NoRole},
		{Frame{Func: "void com.sun.net.httpserver.HttpServer.create()", File: mp, Binary: mp}, Std, "com.sun.net.httpserver", "", NoRole},
		{Frame{Func: "Interpreter", File: mp, Binary: mp}, Runtime, "JVM", "", NoRole},
		{Frame{Func: "StubRoutines (1)", File: mp, Binary: mp}, Runtime, "JVM", "", NoRole},
		{Frame{Func: "I2C/C2I adapters", File: mp, Binary: mp}, Runtime, "JVM", "", NoRole},
		{Frame{Func: "new_instance Runtime1 stub", File: mp, Binary: mp}, Runtime, "JVM", "", NoRole},
		{Frame{Func: "flush_icache_stub", File: mp, Binary: mp}, Runtime, "JVM", "", NoRole},
		{Frame{Func: "CompileBroker::compiler_thread_loop", File: jvm, Binary: jvm}, Runtime, "libjvm", "", NoRole},
		{Frame{Func: "G1ParScanThreadState::trim_queue_to_threshold", File: jvm, Binary: jvm}, Runtime, "libjvm", "", NoRole},
		{Frame{Func: "JavaMain", File: "/usr/lib/jvm/java-17-openjdk-amd64/lib/libjli.so"}, Runtime, "libjvm", "", NoRole},
		{Frame{Func: "Java_java_util_zip_Inflater_inflateBytesBytes", File: "/usr/lib/jvm/java-17-openjdk-amd64/lib/libzip.so"}, Std, "libzip", "", NoRole},
		{Frame{Func: "Lcom/example/Cart;::total", File: mp, Binary: mp}, User, "com.example", "", NoRole},
		{Frame{Func: "org/springframework/web/servlet/DispatcherServlet.doDispatch", File: mp, Binary: mp}, Dependency, "org.springframework.web.servlet", "", NoRole},
		{Frame{Func: "int org.postgresql.jdbc.PgPreparedStatement.executeUpdate()", File: mp, Binary: mp}, Dependency, "org.postgresql.jdbc", "", Database},
		{Frame{Func: "java.sql.ResultSet java.sql.PreparedStatement.executeQuery()", File: mp, Binary: mp}, Std, "java.sql", "", Database},
		{Frame{Func: "com.acme.shop.Api.handle", File: mp, Binary: mp}, User, "com.acme.shop", "", NoRole},
	})
	// With the project's packages known from its sources, every other
	// package is a dependency.
	p := mustNew(t, Spec{Runtime: LangJVM, JVMPackages: []string{"com.acme.shop"}})
	checkClasses(t, p, []classCase{
		{Frame{Func: "com.acme.shop.api.Api.handle", File: mp, Binary: mp}, User, "com.acme.shop.api", "", NoRole},
		{Frame{Func: "com.other.lib.Codec.encode", File: mp, Binary: mp}, Dependency, "com.other.lib", "", NoRole},
		{Frame{Func: "Server.handle", File: mp, Binary: mp}, Dependency, "", "", NoRole},
	})
}

// TestNative: C, C++ and Rust frames as perf names them.
func TestNative(t *testing.T) {
	m := mustNew(t, Spec{Runtime: LangNative, Binaries: []Binary{{Path: "/tmp/rec/cpp", Lang: LangNative}, {Path: "/srv/rx/target/release/rxsvc", Lang: LangRust}}})
	const rx = "/srv/rx/target/release/rxsvc"
	checkClasses(t, m, []classCase{
		{Frame{Func: "perflab::Acc<long>::add", File: "/tmp/rec/cpp"}, User, "", "", NoRole},
		{Frame{Func: "main", File: "/tmp/rec/cpp"}, User, "", "", NoRole},
		{Frame{Func: "std::vector<int, std::allocator<int> >::_M_realloc_insert", File: "/tmp/rec/cpp"}, Std, "libstdc++", "", NoRole},
		{Frame{Func: "__memcmp_evex_movbe", File: "/usr/lib/x86_64-linux-gnu/libc.so.6"}, Runtime, "libc", "", NoRole},
		{Frame{Func: "__libc_start_call_main", File: "/usr/lib/x86_64-linux-gnu/libc.so.6"}, Runtime, "libc", "", NoRole},
		{Frame{Func: "do_lookup_x", File: "/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2"}, Runtime, "ld-linux-x86-64", "", NoRole},
		{Frame{Func: "fdget_pos", File: "[kernel.kallsyms]"}, Runtime, "kernel", "", NoRole},
		{Frame{Func: "SSL_read", File: "/usr/lib/x86_64-linux-gnu/libssl.so.3"}, Dependency, "libssl", "", NoRole},
		// Native extensions are their package's.
		{Frame{Func: "DOUBLE_add", File: "/venv/lib/python3.12/site-packages/numpy/_core/_multiarray_umath.cpython-312-x86_64-linux-gnu.so"}, Dependency, "numpy", "", NoRole},
		{Frame{Func: "pq_exec", File: "/venv/lib/python3.12/site-packages/psycopg2/_psycopg.cpython-312-x86_64-linux-gnu.so"}, Dependency, "psycopg2", "", Database},
		{Frame{Func: "Statement::JS_run", File: "/srv/shop/node_modules/better-sqlite3/build/Release/better_sqlite3.node"}, Dependency, "better-sqlite3", "", Database},
		{Frame{Func: "xmlParseDocument", File: "/srv/vendor/bundle/ruby/3.3.0/gems/nokogiri-1.16.0-x86_64-linux/lib/nokogiri/3.3/nokogiri.so"}, Dependency, "nokogiri", "1.16.0-x86_64-linux", NoRole},
		{Frame{Func: "_ZNSt6vectorIiSaIiEE17_M_realloc_insertIJRKiEEEvN9__gnu_cxx17__normal_iteratorIPiS1_EEDpOT_", File: "/tmp/rec/cpp"}, Std, "libstdc++", "", NoRole},
		{Frame{Func: "rxsvc::main", File: rx}, User, "rxsvc", "", NoRole},
		{Frame{Func: "regex_automata::nfa::thompson::compiler::Compiler::c", File: rx}, Dependency, "regex_automata", "", NoRole},
		{Frame{Func: "<regex_syntax::utf8::Utf8Sequences as core::iter::traits::iterator::Iterator>::next", File: rx}, Dependency, "regex_syntax", "", NoRole},
		{Frame{Func: "core::ptr::drop_in_place<core::cell::RefCell<regex_automata::nfa::thompson::compiler::Utf8State>>", File: rx}, Std, "core", "", NoRole},
		{Frame{Func: "alloc::raw_vec::RawVec<T,A>::grow_one", File: rx}, Std, "alloc", "", NoRole},
		{Frame{Func: "<str>::trim_start_matches::<&str>", File: rx}, Std, "core", "", NoRole},
		{Frame{Func: "<&T as core::fmt::Display>::fmt", File: rx}, Std, "core", "", NoRole},
		{Frame{Func: "_RINvMNtCsgEmfK2I1SDS_4core3stre12trim_matchesNvMNtNtB5_4char7methodsc13is_whitespaceECsjrHSEGnQ3l9_3std", File: rx}, Std, "core", "", NoRole},
		{Frame{Func: "rust_begin_unwind", File: rx}, Std, "std", "", NoRole},
		{Frame{Func: "sqlx_postgres::connection::PgConnection::run", File: rx}, Dependency, "sqlx_postgres", "", Database},
		{Frame{Func: "gimli::read::unit::Unit::new", File: rx}, Std, "gimli", "", NoRole},
		// With DWARF: the file decides.
		{Frame{Func: "regex_automata::meta::regex::Builder::build", File: "/root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/regex-automata-0.4.18/src/meta/regex.rs"}, Dependency, "regex-automata", "0.4.18", NoRole},
		{Frame{Func: "core::str::validations::next_code_point", File: "/rustc/59807616e/library/core/src/str/validations.rs"}, Std, "core", "", NoRole},
		{Frame{Func: "sqlite3VdbeExec", File: "/root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/libsqlite3-sys-0.28.0/sqlite3/sqlite3.c"}, Dependency, "libsqlite3-sys", "0.28.0", Database},
		{Frame{Func: "[unknown]"}, Unknown, "", "", NoRole},
		{Frame{Binary: "/tmp/rec/cpp"}, Unknown, "cpp", "", NoRole},
	})
	// Cargo.lock's crates: versions, and the workspace's crates are the
	// user's.
	lock := ParseCargoLock([]byte("version = 4\n\n[[package]]\nname = \"regex-automata\"\nversion = \"0.4.18\"\nsource = \"registry+https://github.com/rust-lang/crates.io-index\"\nchecksum = \"x\"\n\n[[package]]\nname = \"my-core\"\nversion = \"0.1.0\"\n"))
	w := mustNew(t, Spec{Runtime: LangRust, Modules: lock})
	checkClasses(t, w, []classCase{
		{Frame{Func: "regex_automata::meta::regex::Regex::new", File: rx}, Dependency, "regex-automata", "0.4.18", NoRole},
		{Frame{Func: "my_core::parse", File: rx}, User, "my-core", "", NoRole},
		{Frame{Func: "rxsvc::main", File: rx}, User, "", "", NoRole},
	})
}
