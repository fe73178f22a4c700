// Package store keeps perflab's run directories: <store>/<time>-<name>/,
// each with run.json, profiles/ and the target's log. It creates them, lists
// them newest first, resolves a user's reference (ID, name, path or glob) to
// runs, and removes them.
package store

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"perflab/internal/runfmt"
)

// DefaultRoot is where runs are kept unless --dir says otherwise: one
// store per user, which every command finds wherever it runs (as go finds
// its build cache): $PERFLAB_RUNS, else the user's data directory
// ($XDG_DATA_HOME/perflab/runs, ~/.local/share/perflab/runs); perflab-runs
// in the working directory when getenv knows neither (tests).
func DefaultRoot(getenv func(string) string) string {
	switch {
	case getenv(RootEnv) != "":
		return getenv(RootEnv)
	case getenv("XDG_DATA_HOME") != "":
		return filepath.Join(getenv("XDG_DATA_HOME"), "perflab", "runs")
	case getenv("HOME") != "":
		return filepath.Join(getenv("HOME"), ".local", "share", "perflab", "runs")
	}
	return "perflab-runs"
}

// RootEnv is the environment variable that names the store.
const RootEnv = "PERFLAB_RUNS"

// DefaultRootHelp says where DefaultRoot is, for --help.
const DefaultRootHelp = "$" + RootEnv + ", else ~/.local/share/perflab/runs"

// Store is a directory of runs.
type Store struct{ Root string }

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// Create makes a new run directory named <time>-<name> and its profiles/
// subdirectory, and returns its path and ID.
func (s Store) Create(name string, at time.Time) (dir, id string, err error) {
	// A name becomes part of a directory's name: no separators, and no
	// ".." (a reference of ".." alone would name the parent directory).
	name = strings.Trim(unsafeName.ReplaceAllString(name, "-"), "-.")
	for strings.Contains(name, "..") {
		name = strings.ReplaceAll(name, "..", ".")
	}
	if name == "" {
		name = "run"
	}
	base := at.Format("20060102-150405") + "-" + name
	for i := 0; ; i++ {
		id = base
		if i > 0 {
			id = fmt.Sprintf("%s-%d", base, i+1)
		}
		dir = filepath.Join(s.Root, id)
		if err := os.MkdirAll(s.Root, 0o755); err != nil {
			return "", "", fmt.Errorf("creating run store %s: %w", s.Root, err)
		}
		err = os.Mkdir(dir, 0o755)
		if err == nil {
			break
		}
		if !os.IsExist(err) {
			return "", "", fmt.Errorf("creating run directory: %w", err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "profiles"), 0o755); err != nil {
		return "", "", err
	}
	return dir, id, nil
}

// Entry is one stored run.
type Entry struct {
	Dir string
	Run *runfmt.Run
	Err error // run.json could not be read
}

// List returns the runs in Root, newest first. Directories whose run.json
// cannot be read are listed with Err set.
func (s Store) List() ([]Entry, error) {
	des, err := os.ReadDir(s.Root)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []Entry
	for _, de := range des {
		if !de.IsDir() || strings.HasPrefix(de.Name(), ".") {
			continue
		}
		dir := filepath.Join(s.Root, de.Name())
		r, err := runfmt.ReadFile(dir)
		out = append(out, Entry{Dir: dir, Run: r, Err: err})
	}
	sort.Slice(out, func(i, j int) bool { return filepath.Base(out[i].Dir) > filepath.Base(out[j].Dir) })
	return out, nil
}

// ResolveGroup resolves a comma-separated list of references (see Resolve)
// into one group of runs, each run once, in the order named.
func (s Store) ResolveGroup(refs string) ([]Entry, error) {
	var out []Entry
	seen := map[string]bool{}
	for ref := range strings.SplitSeq(refs, ",") {
		ref = strings.TrimSpace(ref)
		if ref == "" {
			return nil, fmt.Errorf("run list %q has an empty item (stray comma?)", refs)
		}
		es, err := s.Resolve(ref)
		if err != nil {
			return nil, err
		}
		for _, e := range es {
			if !seen[e.Dir] {
				seen[e.Dir] = true
				out = append(out, e)
			}
		}
	}
	return out, nil
}

// Resolve finds the runs a reference names: a directory path, an ID, a glob
// over IDs, a run name (every run with that name, newest first), or a
// unique ID prefix; "latest" is the newest run. An empty reference names
// nothing, and a prefix of several IDs is an error that lists them: a
// reference never matches more than the user wrote.
func (s Store) Resolve(ref string) ([]Entry, error) {
	if strings.TrimSpace(ref) == "" {
		return nil, errors.New("empty run reference: name a run by ID, name, glob, path or \"latest\"")
	}
	if st, err := os.Stat(ref); err == nil && st.IsDir() {
		r, err := runfmt.ReadFile(ref)
		if err != nil {
			return nil, err
		}
		return []Entry{{Dir: ref, Run: r}}, nil
	}
	glob := IsGlob(ref)
	if glob {
		if _, err := filepath.Match(ref, ""); err != nil {
			return nil, fmt.Errorf("run glob %q: %w", ref, err)
		}
	}
	all, err := s.List()
	if err != nil {
		return nil, err
	}
	if ref == "latest" && len(all) > 0 {
		return all[:1], nil
	}
	var byID, byGlob, byPrefix, byName []Entry
	for _, e := range all {
		id := filepath.Base(e.Dir)
		switch {
		case id == ref:
			byID = append(byID, e)
		case glob:
			if ok, _ := filepath.Match(ref, id); ok {
				byGlob = append(byGlob, e)
			}
		case e.Run != nil && e.Run.Name == ref:
			byName = append(byName, e)
		case strings.HasPrefix(id, ref):
			byPrefix = append(byPrefix, e)
		}
	}
	if len(byID)+len(byGlob)+len(byName) == 0 && len(byPrefix) > 1 {
		return nil, fmt.Errorf("%q is the prefix of %d runs: %s (give more of the ID, or the glob '%s*' to mean them all)",
			ref, len(byPrefix), listIDs(byPrefix, 5), ref)
	}
	for _, set := range [][]Entry{byID, byGlob, byName, byPrefix} {
		if len(set) > 0 {
			for _, e := range set {
				if e.Err != nil {
					return nil, e.Err
				}
			}
			return set, nil
		}
	}
	return nil, fmt.Errorf("no run matches %q in %s (see 'perflab runs')", ref, s.Root)
}

// IsGlob says whether a reference is a glob (it holds *, ? or [).
func IsGlob(ref string) bool { return strings.ContainsAny(ref, "*?[") }

// listIDs names up to n runs, and how many more there are.
func listIDs(es []Entry, n int) string {
	var ids []string
	for i, e := range es {
		if i == n {
			ids = append(ids, fmt.Sprintf("and %d more", len(es)-n))
			break
		}
		ids = append(ids, filepath.Base(e.Dir))
	}
	return strings.Join(ids, ", ")
}

// Remove deletes one run directory. It removes only what perflab made: a
// directory directly inside Root (not a link), holding run.json, whose
// entries are files and at most the profiles/ directory of files; anything
// else is refused and left as it is.
func (s Store) Remove(e Entry) error {
	if err := s.removable(e.Dir); err != nil {
		return fmt.Errorf("not removing %s: %w", e.Dir, &refusal{err})
	}
	return os.RemoveAll(e.Dir)
}

// ErrRefused is a directory Remove leaves as it is because perflab did not
// make all of it (errors.Is).
var ErrRefused = errors.New("refused")

// refusal is why Remove refused a directory.
type refusal struct{ err error }

func (r *refusal) Error() string        { return r.err.Error() }
func (r *refusal) Unwrap() error        { return r.err }
func (r *refusal) Is(target error) bool { return target == ErrRefused }

func (s Store) removable(dir string) error {
	root, err := filepath.Abs(s.Root)
	if err != nil {
		return err
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	if filepath.Dir(abs) != root {
		return fmt.Errorf("it is not a run of %s", s.Root)
	}
	if st, err := os.Lstat(abs); err != nil {
		return err
	} else if !st.IsDir() {
		return errors.New("not a run directory (a link or a file)")
	}
	if _, err := os.Stat(filepath.Join(abs, runfmt.FileName)); err != nil {
		return errors.New("not a perflab run directory (no run.json)")
	}
	return onlyFiles(abs, true)
}

// onlyFiles checks that dir holds regular files only, plus, at the top, a
// profiles/ directory of regular files.
func onlyFiles(dir string, top bool) error {
	des, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, de := range des {
		switch {
		case de.Type().IsRegular():
		case top && de.IsDir() && de.Name() == "profiles":
			if err := onlyFiles(filepath.Join(dir, de.Name()), false); err != nil {
				return err
			}
		default:
			return fmt.Errorf("it holds %s, which perflab did not write", filepath.Join(dir, de.Name()))
		}
	}
	return nil
}
