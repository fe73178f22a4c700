package analysis

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/pprof/profile"

	"perflab/internal/stacks"
)

// ownersOf runs the owner walk on p and returns the owners' names, each
// with its callees' names.
func ownersOf(t *testing.T, p *profile.Profile) []string {
	t.Helper()
	s := stacks.FromProfile(p)
	vi, err := s.SampleIndex("")
	if err != nil {
		t.Fatal(err)
	}
	c := NewCosts(s, vi, UserCode{}, nil)
	var out []string
	for _, o := range projectUser(c, newHandlerFinder(c)).owners(5, 0.05, nil) {
		var cs []string
		for _, cl := range o.Callees {
			cs = append(cs, fmt.Sprintf("%s=%d", s.Funcs[cl.Func].Name, cl.Cost))
		}
		out = append(out, fmt.Sprintf("%s cum=%d own=%d [%s]", s.Funcs[o.Func].Name, o.Cum, o.Own, strings.Join(cs, " ")))
	}
	return out
}

// rb builds a stack of Ruby frames in server.rb ("[c function]" frames
// have no file), root first.
func rb(frames ...string) string {
	for i, f := range frames {
		if !strings.HasPrefix(f, "[") {
			frames[i] = f + "@/srv/app/server.rb:1"
		}
	}
	return strings.Join(frames, ";")
}

func TestOwnerRecursiveConstructor(t *testing.T) {
	// A Hashie::Mash built per request: initialize -> deep_update ->
	// convert_value -> Mash.new -> initialize ..., the leaves spread over
	// convert_key, convert_value, custom_writer and respond_to?.
	base := []string{"block in main", "serve", "route", "price", "Mash#initialize", "deep_update"}
	nested := append(append([]string{}, base...), "block in deep_update", "convert_value", "[c function]", "Mash#initialize", "deep_update", "block in deep_update")
	with := func(prefix []string, tail ...string) string {
		return rb(append(append([]string{}, prefix...), tail...)...)
	}
	p := buildLines(t, nil, map[string]int64{
		with(nested, "convert_key"):                       170,
		with(nested, "convert_value"):                     160,
		with(nested, "custom_writer"):                     140,
		with(nested, "custom_writer", "[c function]"):     60,
		with(nested, "respond_to?"):                       90,
		with(nested):                                      100,
		with(base, "block in deep_update", "convert_key"): 30,
		with(base[:4]):                                    50, // price's own work
		with(base[:3], "list"):                            40,
		with(base[:2]):                                    60, // serve: parsing requests
		rb("block in main", "accept_loop"):                100,
	})
	got := ownersOf(t, p)
	if len(got) == 0 || !strings.HasPrefix(got[0], "Mash#initialize cum=750 ") {
		t.Fatalf("owners %q; want Mash#initialize (cum 750) first", got)
	}
	for _, callee := range []string{"convert_key=200", "convert_value=160", "custom_writer=200", "respond_to?=90", "deep_update=100"} {
		if !strings.Contains(got[0], callee) {
			t.Errorf("owner %q lacks callee %s", got[0], callee)
		}
	}
	for _, o := range got {
		for _, leaf := range []string{"convert_value cum", "custom_writer cum", "route cum", "block in main cum"} {
			if strings.HasPrefix(o, leaf) {
				t.Errorf("owner %q: a leaf or a caller of the constructor named as an owner (all: %q)", o, got)
			}
		}
	}
}

func TestOwnerRecursionEntryOfTornStacks(t *testing.T) {
	// The same constructor sampled by rbspy (--nonblocking) on a busy
	// machine, a few stacks torn above deep_update. In "shallow" (the shape
	// of a run that failed beside two CPU-bound processes) most samples stop
	// in deep_update's own loop, so the recursion back into Mash#initialize
	// holds less than half of deep_update's cost and the walk stopped there;
	// "deep" is the usual shape. The entry of the recursion owns the cost
	// either way.
	base := []string{"block in main", "serve", "route", "price", "Mash#initialize", "deep_update"}
	nested := append(append([]string{}, base...), "block in deep_update", "convert_value", "[c function]", "Mash#initialize", "deep_update")
	with := func(prefix []string, tail ...string) string {
		return rb(append(append([]string{}, prefix...), tail...)...)
	}
	for name, c := range map[string]struct{ flat, nested int64 }{
		"shallow": {500, 200}, // most samples in deep_update's own loop
		"deep":    {50, 650},  // most in the recursion
	} {
		t.Run(name, func(t *testing.T) {
			p := buildLines(t, nil, map[string]int64{
				with(base):                          c.flat,
				with(nested):                        c.nested,
				with(nested, "custom_writer"):       120,
				with(nested, "convert_key"):         80,
				with(nested, "respond_to_missing?"): 70,
				rb("deep_update", "custom_writer"):  10, // torn: no frames above
				rb("block in main", "accept_loop"):  100,
				with(base[:2]):                      40,
			})
			got := ownersOf(t, p)
			if len(got) == 0 || !strings.HasPrefix(got[0], "Mash#initialize cum=970 ") {
				t.Fatalf("owners %q; want Mash#initialize (cum 970) first", got)
			}
			if !strings.Contains(got[0], "custom_writer=120") {
				t.Errorf("owner %q lacks its callee custom_writer=120", got[0])
			}
		})
	}
}

func TestOwnerFanOutConstructor(t *testing.T) {
	// A Go constructor whose cost is spread over four user helpers, each
	// less than half of it: the constructor owns the cost.
	h := "runtime.goexit;net/http.(*conn).serve;net/http.serverHandler.ServeHTTP;net/http.(*ServeMux).ServeHTTP;net/http.HandlerFunc.ServeHTTP;main.handlePrice;main.NewSettings"
	p := build(t, []string{"cpu/nanoseconds"},
		smp{h + ";main.convertKey;strings.ToLower", []int64{200}},
		smp{h + ";main.convertValue;runtime.mallocgc", []int64{300}},
		smp{h + ";main.customWriter;runtime.mapassign_faststr", []int64{250}},
		smp{h + ";main.validate", []int64{150}},
		smp{h, []int64{100}},
		smp{"runtime.goexit;net/http.(*conn).serve;net/http.serverHandler.ServeHTTP;net/http.(*ServeMux).ServeHTTP;net/http.HandlerFunc.ServeHTTP;main.handlePrice;encoding/json.Marshal", []int64{100}},
		smp{"runtime.goexit;runtime.gcBgMarkWorker", []int64{400}},
	)
	got := ownersOf(t, p)
	if len(got) == 0 || !strings.HasPrefix(got[0], "main.NewSettings cum=1000 own=100 [main.convertValue=300 main.customWriter=250 main.convertKey=200 main.validate=150]") {
		t.Fatalf("owners %q; want main.NewSettings first with its four callees", got)
	}
}

func TestOwnerChainToLibrary(t *testing.T) {
	// The handler spends most in search, which spends it in the library:
	// search owns it (the Go behaviour of charging the standard library to
	// its user caller).
	got := ownersOf(t, cpuProfile(t))
	if len(got) < 2 || !strings.HasPrefix(got[0], "main.render cum=450") || !strings.HasPrefix(got[1], "main.search cum=400") {
		t.Fatalf("owners %q; want main.render (450) then main.search (400)", got)
	}
}

func TestOwnerDispatcherRegions(t *testing.T) {
	// A router dispatching to two endpoints: each region gets its owner,
	// not the router.
	p := build(t, []string{"cpu/nanoseconds"},
		smp{"main.serve;main.route;main.price;main.loadRates", []int64{500}},
		smp{"main.serve;main.route;main.price", []int64{100}},
		smp{"main.serve;main.route;main.list;main.render", []int64{300}},
		smp{"main.serve;main.route;main.list;main.sortItems", []int64{50}},
		smp{"main.serve", []int64{50}},
	)
	got := ownersOf(t, p)
	if len(got) < 2 || !strings.HasPrefix(got[0], "main.loadRates cum=500") || !strings.HasPrefix(got[1], "main.render cum=300") {
		t.Fatalf("owners %q; want main.loadRates then main.render", got)
	}
}

func TestHandlerFinder(t *testing.T) {
	const d = "runtime.goexit;net/http.(*conn).serve;net/http.serverHandler.ServeHTTP;net/http.(*ServeMux).ServeHTTP;net/http.HandlerFunc.ServeHTTP"
	p := build(t, []string{"cpu/nanoseconds"},
		smp{d + ";main.logging.func1;net/http.HandlerFunc.ServeHTTP;main.handleItem;main.load", []int64{1}},
		smp{d + ";main.handleStatic;net/http.(*fileHandler).ServeHTTP;net/http.serveFile", []int64{1}},
		smp{d + ";main.(*app).handleMixed;net/http.(*ServeMux).ServeHTTP;net/http.HandlerFunc.ServeHTTP;main.(*app).handleSearch", []int64{1}},
		smp{"runtime.goexit;net/http.(*conn).serve;net/http.serverHandler.ServeHTTP;net/http.(*ServeMux).ServeHTTP;net/http.(*fileHandler).ServeHTTP;net/http.serveFile", []int64{1}},
		smp{"runtime.goexit;runtime.gcBgMarkWorker", []int64{1}},
	)
	s := stacks.FromProfile(p)
	c := NewCosts(s, 0, UserCode{}, nil)
	h := newHandlerFinder(c)
	if h == nil {
		t.Fatal("no handler finder for a net/http profile")
	}
	want := []string{"main.handleItem", "main.handleStatic", "main.(*app).handleSearch", "net/http.(*fileHandler).ServeHTTP", ""}
	for si := 0; si < s.NumStacks(); si++ {
		st := s.Stack(si)
		got := ""
		if i := h.handler(st); i >= 0 {
			got = s.Funcs[st[i]].Name
		}
		if got != want[si] {
			t.Errorf("stack %d: handler %q, want %q", si, got, want[si])
		}
	}
}
