// Command cmd prints the top table of a profile file through the same code
// path as `perflab top`: analysis.TopFile, then Table.WriteText. With -flame
// it writes the flame graph page instead (profile.Parse, then
// analysis.WriteFlameHTML), to time that path too.
//
//	go run ./bench/top/cmd [-n 20] [-user] [-requests N] [-flame out.html] profile.pb.gz
package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/google/pprof/profile"

	"perflab/internal/analysis"
)

func main() {
	if err := run(os.Stdout, os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "top:", err)
		os.Exit(1)
	}
}

func run(w io.Writer, args []string) error {
	fs := flag.NewFlagSet("top", flag.ContinueOnError)
	var opt analysis.TopOptions
	fs.IntVar(&opt.N, "n", 0, "show at most `n` rows (0: all)")
	fs.BoolVar(&opt.User, "user", false, "user code only, with std/runtime cost attributed")
	fs.BoolVar(&opt.Cum, "cum", false, "sort by cumulative cost")
	fs.Int64Var(&opt.Requests, "requests", 0, "add per-request columns for `N` requests")
	fs.StringVar(&opt.SampleIndex, "sample_index", "", "sample type `name` or index")
	flame := fs.String("flame", "", "write a flame graph page to `file` instead of the table")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return fmt.Errorf("want one profile file, got %d arguments", fs.NArg())
	}
	if *flame != "" {
		return writeFlame(*flame, fs.Arg(0), opt)
	}
	t, err := analysis.TopFile(fs.Arg(0), opt)
	if err != nil {
		return err
	}
	return t.WriteText(w)
}

func writeFlame(out, in string, opt analysis.TopOptions) error {
	f, err := os.Open(in)
	if err != nil {
		return err
	}
	defer f.Close()
	p, err := profile.Parse(f)
	if err != nil {
		return fmt.Errorf("parsing %s: %w", in, err)
	}
	o, err := os.Create(out)
	if err != nil {
		return err
	}
	if err := analysis.WriteFlameHTML(o, p, analysis.FlameOptions{Title: in, SampleIndex: opt.SampleIndex, Requests: opt.Requests}); err != nil {
		o.Close()
		return err
	}
	return o.Close()
}
