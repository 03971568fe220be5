package supervisor

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"swarm/gitrepo"
)

// StartProblems are what a start of cfg refuses before it runs anything,
// one error each, in the order of the file; dir is the project's
// directory (the config file's). Start refuses the first; swarm doctor
// reports them all, so that doctor passes what up starts.
func StartProblems(ctx context.Context, cfg *Config, dir string) []error {
	var errs []error
	var repoErr error
	repoChecked := false
	for _, a := range cfg.Agents {
		if !a.Worktree {
			continue
		}
		if !repoChecked {
			_, repoErr = gitrepo.OpenRepo(ctx, dir)
			repoChecked = true
		}
		if repoErr != nil {
			errs = append(errs, fmt.Errorf("agent %s has worktree = true, but %w", a.Name, repoErr))
		}
	}
	return errs
}

// ProjectDir is the directory of cfg's project: its file's, else the
// current one.
func ProjectDir(cfg *Config) string {
	if cfg.Path != "" {
		return filepath.Dir(cfg.Path)
	}
	wd, _ := os.Getwd()
	return wd
}
