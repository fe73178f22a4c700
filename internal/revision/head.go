package revision

import (
	"context"
	"time"
)

// headTimeout bounds Head: two git commands on the local repository.
const headTimeout = 10 * time.Second

// Head is the commit checked out in dir ("": the current directory) and
// whether tracked files differ from it; "" and false when dir is not in a
// git repository or git does not answer in time.
func Head(ctx context.Context, dir string) (commit string, dirty bool) {
	ctx, cancel := context.WithTimeout(ctx, headTimeout)
	defer cancel()
	commit, err := gitCtx(ctx, dir, nil, "rev-parse", "HEAD")
	if err != nil {
		return "", false
	}
	st, err := gitCtx(ctx, dir, nil, "status", "--porcelain", "--untracked-files=no")
	return commit, err == nil && st != ""
}
