package analysis

import (
	"testing"

	"perflab/internal/runfmt"
	"perflab/internal/stacks"
)

// Frames of the library walk's tests: a Flask handler over werkzeug and
// the standard library's json, and a Go handler over protobuf.
const (
	pyApp      = "@/srv/app/app.py:"
	werkzeug   = "@/usr/lib/python3/site-packages/werkzeug/"
	pyJSON     = "@/usr/lib/python3.11/json/encoder.py:"
	protoPath  = "@/root/go/pkg/mod/google.golang.org/protobuf@v1.36.12/"
	goMain     = "@/srv/api/main.go:"
	goRuntime  = "@/usr/local/go/src/runtime/malloc.go:"
	flaskEntry = "SyncWorker.handle@/usr/lib/python3/site-packages/gunicorn/workers/sync.py:1;Flask.wsgi_app@/usr/lib/python3/site-packages/flask/app.py:1"
)

// holderOf walks the library code under the user function named user in
// the profile of samples and returns the entry, the holder and the
// holder's cost.
func holderOf(t *testing.T, user string, samples map[string]int64) (entry, held string, cost int64, h LibraryHold) {
	t.Helper()
	s := stacks.FromProfile(buildLines(t, nil, samples))
	vi, err := s.SampleIndex("")
	if err != nil {
		t.Fatal(err)
	}
	c := NewCosts(s, vi, UserCode{}, nil)
	f := int32(-1)
	for i, fn := range s.Funcs {
		if fn.Name == user {
			f = int32(i)
		}
	}
	if f < 0 || !c.User(f) {
		t.Fatalf("%s is not a user function of the profile", user)
	}
	h = c.LibraryHolder(f)
	name := func(i int32) string {
		if i < 0 {
			return ""
		}
		return s.Funcs[i].Name
	}
	return name(h.Entry), name(h.Func), h.Cost, h
}

func TestLibraryHolderPastEntryFrames(t *testing.T) {
	// request.form: a descriptor's __get__ and three frames that pass the
	// call on, then the multipart parser, whose decoder holds most of it.
	handler := flaskEntry + ";import_rows" + pyApp + "9"
	parse := handler + ";cached_property.__get__" + werkzeug + "utils.py:107;Request.form" + werkzeug + "wrappers/request.py:430" +
		";Request._load_form_data" + werkzeug + "wrappers/request.py:260;MultiPartParser.parse" + werkzeug + "formparser.py:380"
	entry, held, cost, h := holderOf(t, "import_rows", map[string]int64{
		parse + ";MultipartDecoder.next_event" + werkzeug + "sansio/multipart.py:163":                                                              300,
		parse + ";MultipartDecoder.next_event" + werkzeug + "sansio/multipart.py:163;Headers.__init__" + werkzeug + "datastructures/headers.py:60": 100,
		parse + ";MultipartDecoder.next_event" + werkzeug + "sansio/multipart.py:170;parse_options_header" + werkzeug + "http.py:400":              100,
		parse: 200, // the parser's own loop
		parse + ";Headers.get" + werkzeug + "datastructures/headers.py:90": 100,
		handler:    50, // the handler's own code
		flaskEntry: 80,
	})
	if entry != "cached_property.__get__" || held != "MultipartDecoder.next_event" || cost != 500 {
		t.Errorf("entry %q, held by %q with %d; want cached_property.__get__, MultipartDecoder.next_event with 500", entry, held, cost)
	}
	if len(h.Path) != 5 || h.EntryCost != 800 {
		t.Errorf("path %d functions, entry cost %d; want 5 functions (__get__ down to next_event), 800", len(h.Path), h.EntryCost)
	}
}

func TestLibraryHolderStopsWhereCostFansOut(t *testing.T) {
	handler := flaskEntry + ";render" + pyApp + "4"
	tmpl := handler + ";Template.render@/usr/lib/python3/site-packages/jinja2/environment.py:1290"
	entry, held, cost, _ := holderOf(t, "render", map[string]int64{
		tmpl + ";root@/usr/lib/python3/site-packages/jinja2/environment.py:1;escape@/usr/lib/python3/site-packages/markupsafe/__init__.py:1": 400,
		tmpl + ";root@/usr/lib/python3/site-packages/jinja2/environment.py:1;getattr@/usr/lib/python3/site-packages/jinja2/runtime.py:1":     400,
		tmpl + ";concat@/usr/lib/python3/site-packages/jinja2/utils.py:1":                                                                    200,
	})
	// root holds 800 of Template.render's 1000; its two callees 400 each.
	if entry != "Template.render" || held != "root" || cost != 800 {
		t.Errorf("entry %q, held by %q with %d; want Template.render, root with 800", entry, held, cost)
	}
}

func TestLibraryHolderStopsAtRecursion(t *testing.T) {
	handler := flaskEntry + ";export_orders" + pyApp + "20"
	enc := handler + ";dumps@/usr/lib/python3.11/json/__init__.py:238;JSONEncoder.encode" + pyJSON + "200;_iterencode" + pyJSON + "430"
	dict := enc + ";_iterencode_dict" + pyJSON + "350"
	entry, held, cost, _ := holderOf(t, "export_orders", map[string]int64{
		dict + ";_iterencode_list" + pyJSON + "300;_iterencode_dict" + pyJSON + "360": 700,
		dict:    200,
		enc:     100,
		handler: 20,
	})
	if entry != "dumps" || held != "_iterencode_dict" || cost != 900 {
		t.Errorf("entry %q, held by %q with %d; want dumps, held by _iterencode_dict (the recursion's entry) with 900", entry, held, cost)
	}
}

func TestLibraryHolderGoDependencyNotRuntime(t *testing.T) {
	handler := "net/http.(*conn).serve@/usr/local/go/src/net/http/server.go:1;main.handler" + goMain + "40"
	marshal := handler + ";google.golang.org/protobuf/proto.Marshal" + protoPath + "proto/encode.go:110" +
		";google.golang.org/protobuf/proto.MarshalOptions.marshal" + protoPath + "proto/encode.go:160" +
		";google.golang.org/protobuf/internal/impl.(*MessageInfo).marshal" + protoPath + "internal/impl/encode.go:100"
	entry, held, cost, _ := holderOf(t, "main.handler", map[string]int64{
		marshal + ";runtime.mallocgc" + goRuntime + "1000": 700,
		marshal: 200,
		handler + ";google.golang.org/protobuf/proto.Marshal" + protoPath + "proto/encode.go:120": 100,
		handler + ";runtime.mallocgc" + goRuntime + "1000":                                        50,
	})
	if entry != "google.golang.org/protobuf/proto.Marshal" || held != "google.golang.org/protobuf/internal/impl.(*MessageInfo).marshal" || cost != 900 {
		t.Errorf("entry %q, held by %q with %d; want proto.Marshal, held by impl.(*MessageInfo).marshal with 900 (not the runtime's mallocgc)", entry, held, cost)
	}
}

func TestLibraryHolderRuntimeEntry(t *testing.T) {
	handler := "net/http.(*conn).serve@/usr/local/go/src/net/http/server.go:1;main.handler" + goMain + "40"
	entry, held, _, _ := holderOf(t, "main.handler", map[string]int64{
		handler + ";runtime.mallocgc" + goRuntime + "1000": 700,
		handler: 100,
	})
	if entry != "runtime.mallocgc" || held != "" {
		t.Errorf("entry %q, held by %q; want runtime.mallocgc, held by no library function", entry, held)
	}
}

// TestTimeKindsRunningNamesTheDependencyHolder: the running time's top
// site names the dependency's function holding its cost (request.form's
// parser, not cached_property.__get__); under a standard library's
// entry (json.dumps) the entry, the call the user wrote, stays.
func TestTimeKindsRunningNamesTheDependencyHolder(t *testing.T) {
	running := func(samples map[string]int64) runfmt.TimeRow {
		p := buildLines(t, nil, samples)
		p.SampleType[0].Type = string(runfmt.TimeRunning)
		return TimeKinds(p, 1, UserCode{})[0]
	}
	handler := flaskEntry + ";import_rows" + pyApp + "9"
	parse := handler + ";cached_property.__get__" + werkzeug + "utils.py:107;MultiPartParser.parse" + werkzeug + "formparser.py:380"
	k := running(map[string]int64{parse + ";MultipartDecoder.next_event" + werkzeug + "sansio/multipart.py:163": 8e6, parse: 2e6})
	if k.Kind != runfmt.TimeRunning || k.Top == nil || k.Top.Function != "import_rows" || k.Top.Callee != "MultipartDecoder.next_event" {
		t.Errorf("running %+v, top %+v; want import_rows in MultipartDecoder.next_event", k, k.Top)
	}
	export := flaskEntry + ";export_orders" + pyApp + "20"
	enc := export + ";dumps@/usr/lib/python3.11/json/__init__.py:238;JSONEncoder.encode" + pyJSON + "200"
	k = running(map[string]int64{enc + ";_iterencode" + pyJSON + "430": 9e6, enc: 1e6})
	if k.Top == nil || k.Top.Callee != "dumps" {
		t.Errorf("top %+v; want export_orders in dumps", k.Top)
	}
}
