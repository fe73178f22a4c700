package session

import (
	"fmt"
	"strconv"
	"strings"

	"perflab/internal/profiling"
)

// ownEnv are the variables perflab set in a launched service's
// environment for its own measurements, beyond what the user gave: a
// service that exits while it starts is told of them, since one of them
// may be what stopped it.
type ownEnv []ownVar

// ownVar is one of them: its value as the service got it and what
// perflab set it for.
type ownVar struct{ name, value, why string }

// launchEnv is the launched service's environment: the user's (--env)
// with perflab's own settings, which it records in s.own, and whether
// one of them asks Go for its GC trace.
func (s *Session) launchEnv() (env []string, gcTrace bool) {
	c := &s.cfg
	env = append([]string(nil), c.Env...)
	userOpts := envValue(c.Env, "NODE_OPTIONS")
	nodeOpts, nodeWhy := userOpts, []string(nil)
	if !c.NoPerfMap {
		nodeOpts, nodeWhy = profiling.WithPerfMap(nodeOpts), append(nodeWhy, "perf's names of JavaScript functions, which --no-perf-map leaves out")
	}
	if profiling.OpensInspector(c.Profiler) {
		opts, err := profiling.WithInspectPreload(nodeOpts, s.dir)
		if err != nil {
			s.warn(err.Error())
		} else if opts != nodeOpts {
			nodeOpts, nodeWhy = opts, append(nodeWhy, "an inspector port per process for V8's profiler, which --profiler perf leaves out")
		}
	}
	if nodeOpts != userOpts {
		env = s.own.set(env, c.Env, "NODE_OPTIONS", nodeOpts, strings.Join(nodeWhy, ", and "))
	}
	if !c.NoPerfMap {
		env = s.own.set(env, c.Env, profiling.JavaToolOptions, profiling.WithJVMFramePointers(envValue(c.Env, profiling.JavaToolOptions)),
			"perf's stacks of Java code, which --no-perf-map leaves out")
	}
	if godebug := envValue(c.Env, "GODEBUG"); !c.NoGCTrace && !strings.Contains(godebug, "gctrace=") {
		env = s.own.set(env, c.Env, "GODEBUG", withGCTrace(godebug), "Go's GC trace, which --no-gctrace leaves out")
		gcTrace = true
	}
	return env, gcTrace
}

// set appends name=value to env and records it, unless the user's own
// env gives name that very value.
func (o *ownEnv) set(env, user []string, name, value, why string) []string {
	if value != envValue(user, name) || !hasEnv(user, name) {
		*o = append(*o, ownVar{name: name, value: value, why: why})
	}
	return append(env, name+"="+value)
}

// explainStart adds perflab's own settings to err when the launched
// service exited before it was ready: one of them may be what stopped
// it. Any other error is returned as it is.
func (s *Session) explainStart(err error) error {
	if err == nil || s.proc == nil || len(s.own) == 0 {
		return err
	}
	select {
	case <-s.proc.Exited():
	default:
		return err
	}
	parts := make([]string, len(s.own))
	for i, v := range s.own {
		parts[i] = fmt.Sprintf("%s=%s (%s)", v.name, strconv.Quote(v.value), v.why)
	}
	return fmt.Errorf("%w\nperflab's own settings were in its environment: %s", err, strings.Join(parts, ", "))
}

// hasEnv says whether env gives key a value.
func hasEnv(env []string, key string) bool {
	for _, kv := range env {
		if k, _, ok := strings.Cut(kv, "="); ok && k == key {
			return true
		}
	}
	return false
}
