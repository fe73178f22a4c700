package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"
)

// k8sDoc is what the test reads of a Kubernetes object.
type k8sDoc struct {
	Kind     string
	Metadata struct{ Name string }
	Spec     struct {
		CompletionMode string `yaml:"completionMode"`
		Completions    int
		Template       struct {
			Spec struct{ Containers []k8sContainer }
		}
	}
}

type k8sContainer struct {
	Name    string
	Command []string
	Args    []string
	Env     []struct{ Name, Value string }
}

func readK8s(t *testing.T, path string) []k8sDoc {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var docs []k8sDoc
	dec := yaml.NewDecoder(bytes.NewReader(b))
	for {
		var d k8sDoc
		err := dec.Decode(&d)
		if errors.Is(err, io.EOF) {
			return docs
		}
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		docs = append(docs, d)
	}
}

// argv runs a container's shell script with perflab replaced by a stub
// that records its arguments, and returns them.
func argv(t *testing.T, c k8sContainer, env map[string]string, results string) []string {
	t.Helper()
	if !slices.Equal(c.Command, []string{"/bin/sh", "-c"}) || len(c.Args) != 1 {
		t.Fatalf("container %s: command %q args %q; want /bin/sh -c SCRIPT", c.Name, c.Command, c.Args)
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "argv")
	stub := "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\n' \"$a\"; done > " + out + "\n"
	if err := os.WriteFile(filepath.Join(dir, "perflab"), []byte(stub), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("/bin/sh", "-c", strings.ReplaceAll(c.Args[0], "/results", results))
	cmd.Env = []string{"PATH=" + dir + ":/usr/bin:/bin"}
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("container %s's script: %v\n%s", c.Name, err, b)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatalf("container %s's script did not run perflab: %v", c.Name, err)
	}
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
}

func flagValue(args []string, name string) string {
	for i, a := range args {
		if a == name && i+1 < len(args) {
			return args[i+1]
		}
	}
	return ""
}

// TestKubernetesShardsExample: the example parses as Kubernetes YAML, its
// shard pods get --shard 1/N..N/N of one --start-at and distinct --out
// files, and every perflab command line in it is valid perflab flags.
func TestKubernetesShardsExample(t *testing.T) {
	docs := readK8s(t, filepath.Join("..", "..", "examples", "kubernetes", "shards.yaml"))
	startAt := time.Now().Add(2 * time.Minute).UTC().Format(time.RFC3339)
	results := t.TempDir()
	var shards, outs []string
	commands := map[string]bool{}
	for _, d := range docs {
		if d.Kind != "Job" {
			continue
		}
		for _, c := range d.Spec.Template.Spec.Containers {
			env := map[string]string{}
			for _, e := range c.Env {
				env[e.Name] = strings.ReplaceAll(e.Value, "${START_AT}", startAt)
			}
			for i := range max(1, d.Spec.Completions) {
				if d.Spec.CompletionMode == "Indexed" {
					env["JOB_COMPLETION_INDEX"] = fmt.Sprint(i)
				}
				args := argv(t, c, env, results)
				commands[args[0]] = true
				if code, _, stderr := perflab(t, append(args, "--help")...); code != 0 {
					t.Errorf("job %s: perflab %q: exit %d: %s", d.Metadata.Name, args, code, stderr)
				}
				if args[0] != "load" {
					continue
				}
				shards, outs = append(shards, flagValue(args, "--shard")), append(outs, flagValue(args, "--out"))
				if got := flagValue(args, "--start-at"); got != startAt {
					t.Errorf("shard %d: --start-at %q; want the one START_AT %s", i, got, startAt)
				}
				if err := os.WriteFile(flagValue(args, "--out"), []byte("{}"), 0o644); err != nil {
					t.Fatal(err) // what the merge job waits for
				}
			}
		}
	}
	want := []string{"1/4", "2/4", "3/4", "4/4"}
	if !slices.Equal(shards, want) || len(slices.Compact(slices.Sorted(slices.Values(outs)))) != len(want) {
		t.Errorf("shards %q writing %q; want %q, each to its own file", shards, outs, want)
	}
	if !commands["load"] || !commands["merge"] {
		t.Errorf("commands %v; want the shards' load and the merge", commands)
	}
}
