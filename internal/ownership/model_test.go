package ownership

import (
	"encoding/json"
	"reflect"
	"testing"
)

// TestModelJSON: a Model written into run.json and read back classifies
// the same, --user-code included.
func TestModelJSON(t *testing.T) {
	m := mustNew(t, Spec{Runtime: LangGo, UserCode: `^main\.`, Root: "/src/shop", RootFrom: "--src",
		Modules:  []Module{{Lang: LangGo, Path: "example.com/shop", User: true}, {Lang: LangGo, Path: "google.golang.org/protobuf", Version: "v1.36.12", From: "build info of /srv/shop"}},
		Binaries: []Binary{{Path: "/srv/shop", Lang: LangGo, Symbols: true, FramePointers: FramePointersYes}},
		Notes:    []string{"a note"}})
	b, err := json.Marshal(struct {
		Ownership *Model `json:"ownership"`
	}{m})
	if err != nil {
		t.Fatal(err)
	}
	var back struct {
		Ownership *Model `json:"ownership"`
	}
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back.Ownership.Spec(), m.Spec()) {
		t.Errorf("spec after a round trip %+v, want %+v", back.Ownership.Spec(), m.Spec())
	}
	for _, f := range []Frame{
		{Func: "main.f"}, {Func: "example.com/shop/api.H"}, {Func: "google.golang.org/protobuf/proto.Marshal"}, {Func: "fmt.Println"},
	} {
		if a, b := m.Classify(f), back.Ownership.Classify(f); a != b {
			t.Errorf("%q: %+v before, %+v after the round trip", f.Func, a, b)
		}
	}
	if c := back.Ownership.Classify(Frame{Func: "example.com/shop/api.H"}); c.Kind != Dependency {
		t.Errorf("--user-code lost in the round trip: %+v", c)
	}
	var bad Model
	if err := json.Unmarshal([]byte(`{"user_code":"("}`), &bad); err == nil {
		t.Error("an invalid --user-code pattern read back without an error")
	}
	var kinds []Kind
	if err := json.Unmarshal([]byte(`["user","dependency","std","runtime","unknown"]`), &kinds); err != nil || len(kinds) != 5 || kinds[1] != Dependency {
		t.Errorf("kinds %v, %v", kinds, err)
	}
}

func TestLineRole(t *testing.T) {
	for _, tc := range []struct {
		lang, text string
		want       Role
	}{
		{LangPython, `    cur.execute("select count(*) from t where x > ?", (5,))`, Database},
		{LangPython, `db.executemany("insert into t values (?)", rows)`, Database},
		{LangPython, `    return json.dumps(rows)`, NoRole},
		{LangRuby, `cur.execute("select 1")`, NoRole},
	} {
		if got := LineRole(tc.lang, tc.text); got != tc.want {
			t.Errorf("LineRole(%s, %q) = %v, want %v", tc.lang, tc.text, got, tc.want)
		}
	}
}

func TestLabelsAndRemedies(t *testing.T) {
	for _, tc := range []struct {
		c    Class
		want string
	}{
		{Class{Kind: Dependency, Package: "google.golang.org/protobuf", Version: "v1.36.12"}, "google.golang.org/protobuf v1.36.12"},
		{Class{Kind: Std, Package: "json"}, "json"},
		{Class{Kind: Unknown}, "unknown"},
	} {
		if got := tc.c.Label(); got != tc.want {
			t.Errorf("%+v.Label() = %q, want %q", tc.c, got, tc.want)
		}
	}
}
