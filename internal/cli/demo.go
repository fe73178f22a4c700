package cli

import (
	"errors"
	"fmt"
	"net"
	"strings"

	"github.com/spf13/cobra"

	"perflab/internal/demo"
	"perflab/internal/lab"
)

func newDemoCmd(env Env) *cobra.Command {
	f := newRunFlags()
	var fm findMaxFlags
	var noAB bool
	var apiFlag, pprofFlag string
	cmd := &cobra.Command{
		Use:   "demo [run flags]",
		Short: "Run the whole workflow on the bundled demo service (planted costs included)",
		Long: `Start perflab's bundled demo service — an HTTP API with real per-request
work (search, PNG rendering, JSON, log parsing) and planted costs modelled on
real incidents — under a 1-CPU budget, load it, profile it and print the
verdict: CPU per request, GC share, allocations per request and the functions
to fix. Then run an A/B of the same service against its fixed build (the
planted costs removed) and print whether it got better, with statistics.
Any 'perflab run' flag changes the experiment.`,
		Args: positional(),
		RunE: func(cmd *cobra.Command, args []string) error {
			api, pprofAddr, err := freeAddrs()
			if err != nil {
				return failed(fmt.Errorf("finding free ports on 127.0.0.1: %w", err))
			}
			if apiFlag != "" {
				api = apiFlag
			}
			if pprofFlag != "" {
				pprofAddr = pprofFlag
			}
			command := []string{env.Executable, "demo-service", "-addr", api, "-pprof-addr", pprofAddr}
			c, err := f.config(env, demoURLs(api), command)
			if err != nil {
				return err
			}
			if f.pprof == "" {
				c.Pprof = "http://" + pprofAddr
			}
			f.hooks(env, &c)
			if found, err := findMaxOrCheck(cmd, env, &c, fm, f); found || err != nil {
				return err
			}
			fmt.Fprintf(env.Stderr, "perflab: the load sends %s in turn to the demo service on http://%s\n", strings.Join(demo.LoadPaths, ", "), api)
			res, err := lab.Run(cmd.Context(), c)
			runErr := f.pgo.write(env, f.quiet, "", results(res), printRun(env, f, res, err))
			var ee *exitError
			if runErr != nil && !(errors.As(runErr, &ee) && ee.code == ExitSLO) || noAB || cmd.Context().Err() != nil {
				return runErr
			}
			if !f.out.format.is(formatJSON) {
				fmt.Fprintf(env.Stdout, "\nBefore and after: the same service with its planted costs removed (-fixed), interleaved runs:\n")
			}
			if err := demoAB(cmd, env, f, api, pprofAddr); err != nil {
				return err
			}
			return runErr // a missed --slo still ends the demo with its code
		},
	}
	f.addTo(cmd)
	f.registerForce(cmd)
	fm.register(cmd.Flags())
	f.out = &reportFlags{format: addFormatFlag(cmd, runJSONUsage, formatText, formatJSON)}
	f.out.registerPage(cmd)
	cmd.Flags().BoolVar(&noAB, "no-ab", false, "skip the closing A/B of the demo service against its fixed build")
	v := flagSet{cmd.Flags()}
	v.checked(&apiFlag, "addr", "", "", "host:port", checkDemoAddr, "the demo service's API listens on `host:port` (default: a free port on 127.0.0.1)")
	v.checked(&pprofFlag, "pprof-addr", "", "", "host:port", checkDemoAddr, "the demo service serves net/http/pprof on `host:port` (default: a free port on 127.0.0.1)")
	for name, value := range map[string]string{"cpus": "1", "duration": "10s", "concurrency": "8", "warmup": "2s", "name": "demo"} {
		setDefault(cmd, name, value)
	}
	return cmd
}

// demoURLs are the demo's load targets on api: one per endpoint.
func demoURLs(api string) []string {
	urls := make([]string, len(demo.LoadPaths))
	for i, p := range demo.LoadPaths {
		urls[i] = "http://" + api + p
	}
	return urls
}

// setDefault changes a flag's default (without marking it as given).
func setDefault(cmd *cobra.Command, name, value string) {
	fl := cmd.Flags().Lookup(name)
	if err := fl.Value.Set(value); err != nil {
		panic(fmt.Sprintf("default of --%s: %v", name, err))
	}
	fl.DefValue = value
}

// newDemoServiceCmd is the hidden entry point that runs the demo service as
// its own process, so perflab can launch it in a cgroup like any service.
func newDemoServiceCmd(env Env) *cobra.Command {
	return &cobra.Command{
		Use:                "demo-service",
		Hidden:             true,
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			if code := demo.Main(args, env.Stdout, env.Stderr); code != 0 {
				return &silentExit{code: ExitCode(code)}
			}
			return nil
		},
	}
}

// checkDemoAddr accepts HOST:PORT with a port from 1 to 65535: the load
// and the profiles are sent there, so it cannot be 0.
func checkDemoAddr(s string) error {
	host, port, err := net.SplitHostPort(s)
	if err != nil || host == "" {
		return errors.New("want HOST:PORT, e.g. 127.0.0.1:8080")
	}
	return checkPort(port, 1, false)
}

// freeAddrs finds two free loopback ports.
func freeAddrs() (string, string, error) {
	var addrs []string
	var lns []net.Listener
	defer func() {
		for _, ln := range lns {
			ln.Close()
		}
	}()
	for range 2 {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return "", "", err
		}
		lns = append(lns, ln)
		addrs = append(addrs, ln.Addr().String())
	}
	return addrs[0], addrs[1], nil
}
