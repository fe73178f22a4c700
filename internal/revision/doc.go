// Package revision prepares revisions of a git repository for an A/B run:
// it parses the --git range (BASE..NEW, BASE...NEW), resolves each side to a
// commit (BASE defaults to the merge base with the default branch), checks
// each commit out into a temporary git worktree, optionally snapshots the
// working tree with its uncommitted changes, builds each side once with the
// user's build command, and removes every worktree and build on Close.
// Head names the commit a directory has checked out, and whether it was
// changed since, for every run's environment record.
//
// It runs the git command-line tool (what the user's repository and CI
// already use) rather than a Go git library: worktrees, merge bases and
// shallow clones behave exactly as the user's own git commands do.
//
// # Cleanup
//
// Every temporary directory is named perflab-ab-PID-*, so a perflab killed
// before its Close (kill -9, a third Ctrl-C) leaves nothing for long: the
// next Workspace removes the directories of dead processes and prunes their
// worktrees from the repository.
package revision
