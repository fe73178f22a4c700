package cli

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
)

// outputFormat is a form a command writes its result in: a word of
// --format. The words are declared here once; each command declares the
// ones it writes (addFormatFlag), the flag refuses the others when it is
// parsed (exit 2, naming the command and its formats), and formatFlag.write
// picks the renderer.
type outputFormat string

// The formats of a command's result on stdout.
const (
	formatText     outputFormat = "text"
	formatJSON     outputFormat = "json"
	formatMarkdown outputFormat = "markdown"
	formatJUnit    outputFormat = "junit"
)

// The formats of perflab flame's file: other tools' formats of a flame
// graph, not perflab's report, and the page or export goes to -o (or, for
// an export, stdout). flame keeps the word --format for them, as flame
// graph tools and its users' scripts spell it.
const (
	formatHTML       outputFormat = "html"
	formatCollapsed  outputFormat = "collapsed"
	formatSpeedscope outputFormat = "speedscope"
)

// formatHelp words each format in --format's help.
var formatHelp = map[outputFormat]string{
	formatText:       "text",
	formatJSON:       "json",
	formatMarkdown:   "markdown (GitHub-flavoured: the verdict in one line, the tables, under 60 KiB)",
	formatJUnit:      "junit (JUnit XML: a test case per --fail-on rule, --slo objective or benchmark)",
	formatHTML:       "html (an interactive page)",
	formatCollapsed:  "collapsed (folded stacks)",
	formatSpeedscope: "speedscope (JSON)",
}

// formatAliases are other spellings --format accepts.
var formatAliases = map[string]outputFormat{"md": formatMarkdown, "gfm": formatMarkdown}

// formatFlag is a command's --format: the formats it writes, the one
// chosen, and --json, its alias where the command had --json (scripts
// use it).
type formatFlag struct {
	cmd     *cobra.Command
	formats []outputFormat // the first is the default
	value   outputFormat
	set     bool // --format was given
	json    bool // --json was given
	// start is when the command began (after its flags were parsed): the
	// JUnit report's time.
	start time.Time
}

// addFormatFlag registers --format on cmd with the formats it writes, the
// first the default, and --json with jsonUsage unless that is "".
func addFormatFlag(cmd *cobra.Command, jsonUsage string, formats ...outputFormat) *formatFlag {
	if len(formats) == 0 || jsonUsage != "" && !slices.Contains(formats, formatJSON) {
		panic("perflab " + cmd.Name() + ": --format needs formats, json among them for --json")
	}
	f := &formatFlag{cmd: cmd, formats: formats, value: formats[0]}
	var help []string
	for _, x := range formats {
		help = append(help, formatHelp[x])
	}
	usage := "what the command writes: " + orList(help)
	if jsonUsage != "" {
		usage += " (--json is --format json)"
		cmd.Flags().BoolVar(&f.json, "json", false, jsonUsage)
	}
	cmd.Flags().Var(f, "format", usage)
	return f
}

func (f *formatFlag) String() string { return string(f.value) }
func (f *formatFlag) Type() string   { return "format" }

// Set accepts one of the command's formats (or an alias of one).
func (f *formatFlag) Set(s string) error {
	v := outputFormat(strings.ToLower(strings.TrimSpace(s)))
	if a, ok := formatAliases[string(v)]; ok {
		v = a
	}
	if !slices.Contains(f.formats, v) {
		return fmt.Errorf("%s writes %s", f.cmd.CommandPath(), f.words())
	}
	f.value, f.set = v, true
	return nil
}

// words lists the command's formats: "text or json".
func (f *formatFlag) words() string {
	var ws []string
	for _, x := range f.formats {
		ws = append(ws, string(x))
	}
	return orList(ws)
}

// resolve applies --json once the flags are parsed: it is --format json,
// and beside another --format it is refused.
func (f *formatFlag) resolve() error {
	f.start = time.Now()
	if !f.json {
		return nil
	}
	if f.set && f.value != formatJSON {
		return usageErr("--json and --format %s both set what %s writes: give one (--json is --format json)", f.value, f.cmd.CommandPath())
	}
	f.value = formatJSON
	return nil
}

// is says whether the chosen format is one of fs.
func (f *formatFlag) is(fs ...outputFormat) bool { return slices.Contains(fs, f.value) }

// resolveFormat resolves the --format of the command about to run, if it
// has one: the root's check, before any command's work.
func resolveFormat(cmd *cobra.Command) error {
	if fl := cmd.Flags().Lookup("format"); fl != nil {
		if f, ok := fl.Value.(*formatFlag); ok {
			return f.resolve()
		}
	}
	return nil
}

// views renders one result, a function per format.
type views map[outputFormat]func(io.Writer) error

// jsonView renders v as indented JSON.
func jsonView(v any) func(io.Writer) error {
	return func(w io.Writer) error { return writeJSON(w, v) }
}

// write writes the result in the chosen format to w. A format the command
// declares but does not render is perflab's bug, said as such.
func (f *formatFlag) write(w io.Writer, v views) error {
	render := v[f.value]
	if render == nil {
		return fmt.Errorf("%s declares --format %s but has no writer for it", f.cmd.CommandPath(), f.value)
	}
	return render(w)
}
