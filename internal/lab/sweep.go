package lab

import (
	"context"
	"fmt"
	"strings"
)

// Sweep runs the same experiment once per value of the environment
// variable envName (e.g. GOGC with values 100, 400, 2000), runs times each,
// round-robin over the values so drift spreads over all of them. Runs are
// named NAME-ENV-VALUE. It returns the results per value, in the order of
// values; cancellation and failures behave as in AB.
func Sweep(ctx context.Context, cfg Config, envName string, values []string, runs int, done RunDone) ([][]*Result, error) {
	if envName == "" || strings.Contains(envName, "=") {
		return nil, fmt.Errorf("sweep: variable name %q: want a name such as GOGC", envName)
	}
	if len(values) == 0 {
		return nil, fmt.Errorf("sweep: no values for %s", envName)
	}
	if runs < 1 {
		return nil, fmt.Errorf("sweep: runs %d: want at least 1", runs)
	}
	name := experimentName(cfg.Name)
	var arms []arm
	for _, v := range values {
		c := named(cfg, name+"-"+envName+"-"+v)
		c.Env = withEnv(cfg.Env, envName, v)
		arms = append(arms, arm{label: v, cfg: c})
	}
	return interleave(ctx, arms, runs, done)
}

// withEnv returns a copy of env with name set to value (replacing any
// earlier setting).
func withEnv(env []string, name, value string) []string {
	var out []string
	for _, kv := range env {
		if k, _, _ := strings.Cut(kv, "="); k != name {
			out = append(out, kv)
		}
	}
	return append(out, name+"="+value)
}
