package runfmt

// Revision is the source revision a run measured, when perflab built it
// from git (perflab ab --git): run.json's "revision".
type Revision struct {
	// Side is "base" or "new".
	Side string `json:"side"`
	// Ref is the revision as asked for ("HEAD~1", "main"), or how it was
	// chosen ("merge base of HEAD and origin/main", "working tree").
	Ref string `json:"ref"`
	// Commit is the full commit hash; for the working tree, a commit that
	// perflab made of it (Uncommitted), which no branch holds.
	Commit  string `json:"commit"`
	Subject string `json:"subject,omitempty"`
	// Uncommitted says the run measured the working tree with its
	// uncommitted changes (perflab ab --uncommitted).
	Uncommitted bool `json:"uncommitted,omitempty"`
	// Build is the build command, "" when the service ran from its
	// worktree without one.
	Build string `json:"build,omitempty"`
}

// Short is the commit's abbreviated hash.
func (r *Revision) Short() string {
	if r == nil {
		return ""
	}
	if len(r.Commit) > 12 {
		return r.Commit[:12]
	}
	return r.Commit
}
