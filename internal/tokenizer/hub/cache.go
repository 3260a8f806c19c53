package hub

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// The files of a tokenizer, as transformers' AutoTokenizer looks for them.
// tokenizer.json is required; the others change the result when present
// (special tokens, clean-up, chat template).
var (
	requiredFile  = "tokenizer.json"
	optionalFiles = []string{"tokenizer_config.json", "special_tokens_map.json", "chat_template.jinja"}
)

// repoIDPattern is what the Hub accepts as a model id: "name" or
// "org/name", made of letters, digits, '-', '_' and '.'.
var repoIDPattern = regexp.MustCompile(`^(?:[A-Za-z0-9][A-Za-z0-9._-]*/)?[A-Za-z0-9][A-Za-z0-9._-]*$`)

// commitPattern is a full commit hash, which names a snapshot directly.
var commitPattern = regexp.MustCompile(`^[0-9a-f]{40}$`)

// isRepoID reports whether name can be a Hugging Face model id.
func isRepoID(name string) bool {
	return repoIDPattern.MatchString(name) && !strings.Contains(name, "..") && !strings.HasSuffix(name, ".json")
}

// cacheDir is the Hugging Face hub cache, chosen as huggingface_hub chooses
// it: HF_HUB_CACHE (or its old name HUGGINGFACE_HUB_CACHE), else
// HF_HOME/hub, else $XDG_CACHE_HOME/huggingface/hub, else
// ~/.cache/huggingface/hub. It also returns which variable decided, for
// messages.
func cacheDir(getenv func(string) string) (dir, from string) {
	for _, v := range []string{"HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE"} {
		if d := getenv(v); d != "" {
			return expandHome(d, getenv), v
		}
	}
	if d := getenv("HF_HOME"); d != "" {
		return filepath.Join(expandHome(d, getenv), "hub"), "HF_HOME"
	}
	if d := getenv("XDG_CACHE_HOME"); d != "" {
		return filepath.Join(expandHome(d, getenv), "huggingface", "hub"), "XDG_CACHE_HOME"
	}
	return filepath.Join(getenv("HOME"), ".cache", "huggingface", "hub"), "the default, ~/.cache/huggingface/hub"
}

// expandHome replaces a leading "~" as Python's os.path.expanduser does.
func expandHome(p string, getenv func(string) string) string {
	if p == "~" || strings.HasPrefix(p, "~/") {
		return filepath.Join(getenv("HOME"), p[1:])
	}
	return p
}

// repoFolder is the cache folder of a model repository:
// models--org--name.
func repoFolder(cache, repo string) string {
	return filepath.Join(cache, "models--"+strings.ReplaceAll(repo, "/", "--"))
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
	if !commitPattern.MatchString(revision) {
		ref := filepath.Join(folder, "refs", filepath.FromSlash(revision))
		b, err := os.ReadFile(ref)
		if err != nil {
			return "", fmt.Errorf("%s has no refs/%s: %w", folder, revision, err)
		}
		commit = strings.TrimSpace(string(b))
		if !commitPattern.MatchString(commit) {
			return "", fmt.Errorf("%s: %q is not a commit hash", ref, commit)
		}
	}
	snap := filepath.Join(folder, "snapshots", commit)
	if _, err := os.Stat(filepath.Join(snap, requiredFile)); err != nil {
		return "", fmt.Errorf("snapshot %s has no %s", snap, requiredFile)
	}
	return snap, nil
}
