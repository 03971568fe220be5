package gitrepo

import (
	"context"
)

// DiffStat is `git diff --stat base...branch`: what the branch changed since
// it left base, whatever happened on base meanwhile.
func (r *Repo) DiffStat(ctx context.Context, base, branch string) (string, error) {
	return git("diff", "--no-color", "--no-ext-diff", "--stat", headRef(base)+"..."+headRef(branch)).run(ctx, r.root)
}

// Diff is `git diff base...branch`, the patch under review.
func (r *Repo) Diff(ctx context.Context, base, branch string) (string, error) {
	return git("diff", "--no-color", "--no-ext-diff", headRef(base)+"..."+headRef(branch)).run(ctx, r.root)
}
