package store

import (
	"testing"
	"time"

	"perflab/internal/runfmt"
)

func TestCreateListResolveRemove(t *testing.T) {
	s := Store{Root: t.TempDir()}
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	var ids []string
	for i, name := range []string{"base", "new feature", "base"} {
		dir, id, err := s.Create(name, at.Add(time.Duration(i)*time.Second))
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
		if err := runfmt.WriteFile(dir, &runfmt.Run{SchemaVersion: runfmt.SchemaVersion, Name: name, ID: id}); err != nil {
			t.Fatal(err)
		}
	}
	if ids[1] != "20260102-030406-new-feature" {
		t.Errorf("id = %q", ids[1])
	}
	all, err := s.List()
	if err != nil || len(all) != 3 || all[0].Run.ID != ids[2] {
		t.Fatalf("List = %v, %v; want 3 runs newest first", all, err)
	}
	for ref, want := range map[string]int{"base": 2, ids[1]: 1, "2026*": 3, "latest": 1, "20260102-030406": 1} {
		got, err := s.Resolve(ref)
		if err != nil || len(got) != want {
			t.Errorf("Resolve(%q) = %d runs, %v; want %d", ref, len(got), err, want)
		}
	}
	if _, err := s.Resolve("nope"); err == nil {
		t.Error("Resolve(nope): want an error")
	}
	// A group names each run once, in the order named.
	if g, err := s.ResolveGroup(ids[1] + ", base," + ids[0]); err != nil || len(g) != 3 || g[0].Run.ID != ids[1] {
		t.Errorf("ResolveGroup = %d runs, %v; want 3, %s first", len(g), err, ids[1])
	}
	for _, bad := range []string{"base,,new", "base,nope"} {
		if _, err := s.ResolveGroup(bad); err == nil {
			t.Errorf("ResolveGroup(%q): want an error", bad)
		}
	}
	if err := s.Remove(all[0]); err != nil {
		t.Fatal(err)
	}
	if all, _ := s.List(); len(all) != 2 {
		t.Errorf("after Remove: %d runs", len(all))
	}
}

func TestSameSecondGetsADistinctID(t *testing.T) {
	s := Store{Root: t.TempDir()}
	at := time.Now()
	_, a, _ := s.Create("x", at)
	_, b, _ := s.Create("x", at)
	if a == b {
		t.Errorf("two runs in the same second share id %q", a)
	}
}
