package hub

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/gobench/gobench/internal/hfhub"
)

// The files of a tokenizer, as transformers' AutoTokenizer looks for them.
// tokenizer.json is required; the others change the result when present
// (special tokens, clean-up, chat template).
var (
	requiredFile  = "tokenizer.json"
	optionalFiles = []string{"tokenizer_config.json", "special_tokens_map.json", "chat_template.jinja"}
)

// isRepoID reports whether name can be a Hugging Face model id (not a
// tokenizer.json path).
func isRepoID(name string) bool {
	return hfhub.IsRepoID(name) && !strings.HasSuffix(name, ".json")
}

// cacheDir is hfhub.CacheDir.
func cacheDir(getenv func(string) string) (dir, from string) { return hfhub.CacheDir(getenv) }

// repoFolder is the cache folder of a model repository:
// models--org--name.
func repoFolder(cache, repo string) string {
	return (&hfhub.Client{Cache: cache}).Folder(model(repo))
}

// cachedSnapshot finds the snapshot folder of repo at revision in the
// cache, the way huggingface_hub's try_to_load_from_cache does: a commit
// hash names its snapshot; a branch or tag is read from refs/<revision>.
// It returns the folder if it holds tokenizer.json.
func cachedSnapshot(cache, repo, revision string) (string, error) {
	folder := repoFolder(cache, repo)
	if _, err := os.Stat(folder); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("%s does not exist", folder)
		}
		return "", err
	}
	commit := revision
	if !hfhub.CommitPattern.MatchString(revision) {
		ref := filepath.Join(folder, "refs", filepath.FromSlash(revision))
		b, err := os.ReadFile(ref)
		if err != nil {
			return "", fmt.Errorf("%s has no refs/%s: %w", folder, revision, err)
		}
		commit = strings.TrimSpace(string(b))
		if !hfhub.CommitPattern.MatchString(commit) {
			return "", fmt.Errorf("%s: %q is not a commit hash", ref, commit)
		}
	}
	snap := filepath.Join(folder, "snapshots", commit)
	if _, err := os.Stat(filepath.Join(snap, requiredFile)); err != nil {
		return "", fmt.Errorf("snapshot %s has no %s", snap, requiredFile)
	}
	return snap, nil
}
