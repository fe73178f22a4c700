package cli

import (
	"strings"

	"perflab/internal/lab"
)

// shellBuiltins are commands a shell runs inside itself: they change the
// shell's own state (its directory, variables, limits) for the commands
// after them, so started alone they do nothing a run could measure, and
// most have no program in PATH at all.
var shellBuiltins = map[string]bool{
	"cd": true, "pushd": true, "popd": true, "export": true, "set": true, "unset": true,
	"source": true, ".": true, "alias": true, "unalias": true, "ulimit": true, "umask": true,
	"exec": true, "eval": true, "local": true, "declare": true, "typeset": true, "readonly": true,
	"shift": true, "trap": true, "let": true, "shopt": true, "builtin": true,
}

// checkCommand refuses, before anything runs, a command perflab cannot
// start: an empty program name, or a shell builtin (cd, export ...),
// which only a shell runs. where says where the command was given ("--",
// "--base").
func checkCommand(where string, argv []string) error {
	if len(argv) == 0 {
		return nil
	}
	prog := argv[0]
	switch {
	case prog == "":
		return usageErr("%s: the program's name is empty: give the command to run", given(where, argv))
	case prog == "exec" && len(argv) > 1:
		return usageErr("%s: exec is a shell builtin, not a program: perflab starts the command itself, give it without exec: %s",
			given(where, argv), given(where, argv[1:]))
	case shellBuiltins[prog]:
		inShell := "sh -c '" + strings.Join(argv, " ") + " && ...'"
		if where == "--" {
			inShell = "-- " + inShell
		} else {
			inShell = where + ` "` + inShell + `"`
		}
		return usageErr("%s: %s is a shell builtin, not a program perflab can start: run the line in a shell, as in %s",
			given(where, argv), prog, inShell)
	}
	return nil
}

// given is a command as the user gives it: after -- as words, as a flag's
// value (--base "./server -addr :8080") as one.
func given(where string, argv []string) string {
	if where == "--" {
		return "-- " + quoteLine(argv)
	}
	return where + " " + quoteArg(quoteLine(argv))
}

// checkProgram refuses a command whose program is not found (a name not
// in PATH, a path to no executable file): said before the first run of
// ab, which would otherwise fail the same way on every run.
func checkProgram(where string, argv []string) error {
	if err := checkCommand(where, argv); err != nil {
		return err
	}
	if err := lab.CheckProgram(argv[0]); err != nil {
		return usageErr("%s: %v", given(where, argv), err)
	}
	return nil
}

// quoteLine is a command line as a user would type it.
func quoteLine(argv []string) string {
	q := make([]string, len(argv))
	for i, a := range argv {
		q[i] = quoteArg(a)
	}
	return strings.Join(q, " ")
}
