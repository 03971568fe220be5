package gitrepo

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Repo is a git repository seen from its main worktree. Task worktrees live
// under <root>/.swarm/worktrees/<task-id> on branches swarm/<task-id>.
//
// A Repo holds no open resources and is safe for concurrent use; merges are
// serialised by a lock file shared by every process (see Merge).
//
// git runs with the user's own configuration, hooks and identity, with its
// input from /dev/null, no terminal prompts, no editor, and without
// inherited variables that would point it at another repository (GIT_DIR,
// GIT_WORK_TREE, GIT_INDEX_FILE, …).
type Repo struct {
	root      string // the main worktree
	commonDir string // the .git directory shared by all worktrees
}

// OpenRepo opens the repository containing dir. From inside a linked
// worktree it still opens the main worktree. A directory outside any
// repository gives an error wrapping ErrNotGitRepo; a bare repository is
// refused because tasks are merged through its main worktree.
func OpenRepo(ctx context.Context, dir string) (*Repo, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("open repository %s: %w", dir, err)
	}
	if _, err := os.Stat(abs); err != nil {
		return nil, fmt.Errorf("open repository: %w", err)
	}
	out, err := git("rev-parse", "--path-format=absolute", "--git-common-dir").run(ctx, abs)
	if err != nil {
		var ge *GitError
		if errors.As(err, &ge) && exitCode(ge.Err) == 128 && ctx.Err() == nil {
			if strings.Contains(ge.Stderr, "not a git repository") {
				return nil, fmt.Errorf("%s: %w", abs, ErrNotGitRepo)
			}
			return nil, fmt.Errorf("%s: %w (%w)", abs, ErrNotGitRepo, err)
		}
		return nil, err
	}
	r := &Repo{commonDir: strings.TrimSpace(out)}
	wts, err := r.worktrees(ctx, abs)
	if err != nil {
		return nil, err
	}
	if len(wts) == 0 || wts[0].bare {
		return nil, fmt.Errorf("%s: the repository is bare: swarm needs its main worktree", abs)
	}
	r.root = wts[0].path
	return r, nil
}

// Root is the directory of the main worktree.
func (r *Repo) Root() string { return r.root }

// swarmExclude is the pattern that keeps swarm's own directory out of git.
const swarmExclude = ".swarm/"

// ExcludeSwarmDir makes sure `.swarm/` is listed in the repository's
// info/exclude (shared by all worktrees), so the bus and the task worktrees
// never show up as untracked files. It adds the line only once.
func (r *Repo) ExcludeSwarmDir(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	path := filepath.Join(r.commonDir, "info", "exclude")
	data, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("exclude .swarm/: %w", err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		switch strings.TrimSpace(line) {
		case ".swarm", ".swarm/", "/.swarm", "/.swarm/":
			return nil
		}
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("exclude .swarm/: %w", err)
	}
	add := swarmExclude + "\n"
	if len(data) > 0 && data[len(data)-1] != '\n' {
		add = "\n" + add
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("exclude .swarm/: %w", err)
	}
	_, err = f.WriteString(add)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("exclude .swarm/: %w", err)
	}
	return nil
}
