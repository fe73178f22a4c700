package compare

import (
	"fmt"
	"net/url"
	"slices"
	"sort"
	"strings"
)

// checkComparable warns about what differs between the runs and refuses
// runs of different URL paths unless opt.Force.
func checkComparable(base, new []run, opt Options, warn *[]string) error {
	all := append(append([]run(nil), base...), new...)
	if paths := distinct(all, func(r run) string { return urlPath(r.r.Config.URL) }); len(paths) > 1 {
		msg := fmt.Sprintf("the runs load different URLs (%s): their numbers describe different work", strings.Join(paths, ", "))
		if !opt.Force {
			return fmt.Errorf("comparing runs: %w: %s (--force to compare anyway)", ErrIncomparable, msg)
		}
		*warn = append(*warn, msg+"; compared because of --force")
	}
	for _, d := range differences {
		if slices.Contains(opt.Expected, d.name) {
			continue
		}
		if vs := distinct(all, d.value); len(vs) > 1 {
			*warn = append(*warn, fmt.Sprintf("%s differs between runs: %s", d.what, strings.Join(vs, " vs ")))
		}
	}
	envWarnings(all, opt.Expected, warn)
	return nil
}

// difference is one piece of configuration that should match.
type difference struct {
	name, what string
	value      func(r run) string
}

var differences = []difference{
	{"host", "URL host", func(r run) string { return urlHost(r.r.Config.URL) }},
	{"command", "command", func(r run) string { return strings.Join(r.r.Config.Command, " ") }},
	{"cpus", "CPU budget (--cpus)", func(r run) string { return budget(r.r.Config.CPUs, "cores") }},
	{"memory", "memory budget (--memory)", func(r run) string { return budget(float64(r.r.Config.MemoryBytes), "bytes") }},
	{"load", "load (flags)", func(r run) string { return flags(r.r.Config.Load) }},
	{"model", "load model", func(r run) string { return loadModel(r) }},
	{"warmup", "warm-up", func(r run) string { return fmt.Sprintf("%gs", r.r.Config.WarmupS) }},
	{"hostname", "machine", func(r run) string { return r.r.Env.Hostname }},
	{"cores", "host cores", func(r run) string { return fmt.Sprint(r.r.Env.HostCores) }},
}

// envWarnings names the environment variables whose values differ,
// except those opt.Expected lists as "env:NAME".
func envWarnings(all []run, expected []string, warn *[]string) {
	keys := map[string]bool{}
	for _, r := range all {
		for k := range r.r.Config.Env {
			keys[k] = true
		}
	}
	var names []string
	for k := range keys {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		if slices.Contains(expected, "env:"+k) {
			continue
		}
		vs := distinct(all, func(r run) string {
			if v, ok := r.r.Config.Env[k]; ok {
				return k + "=" + v
			}
			return k + " unset"
		})
		if len(vs) > 1 {
			*warn = append(*warn, fmt.Sprintf("environment differs between runs: %s", strings.Join(vs, " vs ")))
		}
	}
}

// distinct returns the distinct values of f over runs, in first-seen order.
func distinct(runs []run, f func(run) string) []string {
	var out []string
	for _, r := range runs {
		if v := f(r); !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out
}

func urlPath(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return s
	}
	p := u.EscapedPath()
	if p == "" {
		p = "/"
	}
	if u.RawQuery != "" {
		p += "?" + u.RawQuery
	}
	return p
}

func urlHost(s string) string {
	if u, err := url.Parse(s); err == nil {
		return u.Host
	}
	return s
}

func budget(v float64, unit string) string {
	if v == 0 {
		return "none"
	}
	return fmt.Sprintf("%g %s", v, unit)
}

func flags(m map[string]string) string {
	var kv []string
	for k, v := range m {
		kv = append(kv, k+"="+v)
	}
	sort.Strings(kv)
	return "{" + strings.Join(kv, " ") + "}"
}
