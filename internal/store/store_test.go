package store

import (
	"os"
	"path/filepath"
	"strings"
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

// TestResolveMatchesNoMoreThanWritten: an empty reference (an unset shell
// variable) names nothing, and a prefix of several IDs is an error listing
// them, never all of them.
func TestResolveMatchesNoMoreThanWritten(t *testing.T) {
	s := Store{Root: t.TempDir()}
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for i := range 3 {
		dir, id, err := s.Create("svc", at.Add(time.Duration(i)*time.Minute))
		if err != nil {
			t.Fatal(err)
		}
		if err := runfmt.WriteFile(dir, &runfmt.Run{SchemaVersion: runfmt.SchemaVersion, Name: "svc", ID: id}); err != nil {
			t.Fatal(err)
		}
	}
	for _, ref := range []string{"", " ", "\t"} {
		if es, err := s.Resolve(ref); err == nil || len(es) > 0 {
			t.Errorf("Resolve(%q) = %d runs, %v; want an error", ref, len(es), err)
		}
	}
	_, err := s.Resolve("2026")
	if err == nil || !strings.Contains(err.Error(), "prefix of 3 runs") || !strings.Contains(err.Error(), "20260102-030405-svc") {
		t.Errorf("Resolve(2026) = %v; want an error listing the 3 runs", err)
	}
	if es, err := s.Resolve("20260102-0305"); err != nil || len(es) != 1 {
		t.Errorf("Resolve(unique prefix) = %d runs, %v", len(es), err)
	}
	if _, err := s.Resolve("2026[0"); err == nil {
		t.Error("Resolve(malformed glob): no error")
	}
	if _, err := s.ResolveGroup(","); err == nil {
		t.Error("ResolveGroup(\",\"): no error")
	}
}

// TestRemoveOnlyWhatPerflabMade refuses a directory outside the store, a
// link, and a run directory holding something perflab did not write.
func TestRemoveOnlyWhatPerflabMade(t *testing.T) {
	root := t.TempDir()
	s := Store{Root: filepath.Join(root, "runs")}
	dir, id, err := s.Create("svc", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	run := &runfmt.Run{SchemaVersion: runfmt.SchemaVersion, Name: "svc", ID: id}
	if err := runfmt.WriteFile(dir, run); err != nil {
		t.Fatal(err)
	}
	// A user's project that happens to hold a run.json, outside the store.
	project := filepath.Join(root, "project")
	os.MkdirAll(filepath.Join(project, "src"), 0o755)
	runfmt.WriteFile(project, run)
	if err := s.Remove(Entry{Dir: project, Run: run}); err == nil {
		t.Error("Remove(a directory outside the store): no error")
	}
	link := filepath.Join(s.Root, "20260101-000000-link")
	os.Symlink(project, link)
	if err := s.Remove(Entry{Dir: link, Run: run}); err == nil {
		t.Error("Remove(a link to a directory): no error")
	}
	os.Mkdir(filepath.Join(dir, "notes"), 0o755)
	if err := s.Remove(Entry{Dir: dir, Run: run}); err == nil || !strings.Contains(err.Error(), "notes") {
		t.Errorf("Remove(run with a directory of the user's) = %v; want a refusal naming it", err)
	}
	os.Remove(filepath.Join(dir, "notes"))
	os.WriteFile(filepath.Join(dir, "profiles", "cpu.pb.gz"), []byte("x"), 0o644)
	if err := s.Remove(Entry{Dir: dir, Run: run}); err != nil {
		t.Errorf("Remove(a run) = %v", err)
	}
	for _, p := range []string{project, filepath.Join(project, "src"), link} {
		if _, err := os.Lstat(p); err != nil {
			t.Errorf("%s was removed: %v", p, err)
		}
	}
}

func TestCreateEncodesHostileNames(t *testing.T) {
	s := Store{Root: t.TempDir()}
	for _, name := range []string{"../../etc", "a/../b", "..", "x..y", "/abs"} {
		dir, id, err := s.Create(name, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(id, "..") || strings.Contains(id, "/") || filepath.Dir(dir) != s.Root {
			t.Errorf("Create(%q) = %s (%s): want a directory of the store, without .. or /", name, id, dir)
		}
	}
}
