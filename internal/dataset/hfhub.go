package dataset

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"net/url"
	"os"

	"github.com/gobench/gobench/internal/exitcode"
	"github.com/gobench/gobench/internal/hffiles"
	"github.com/gobench/gobench/internal/hfhub"
)

// Hub is how the hf dataset reaches the Hugging Face Hub when
// --dataset-path is a dataset id rather than a local copy: the run's
// context, an HTTP client, and the environment (HF_ENDPOINT, HF_TOKEN,
// HF_HUB_OFFLINE, HF_HOME, HF_HUB_CACHE), read as the tokenizer's
// download reads them (package hfhub).
type Hub struct {
	Ctx    context.Context
	HTTP   *http.Client
	Getenv func(string) string
}

// maxDataFileBytes bounds one downloaded data file: well above the
// largest text dataset vLLM names (ShareGPT's JSON, about 650 MB), so that
// an endless answer cannot fill the disk.
const maxDataFileBytes = 16 << 30

// hfRevision is the branch load_dataset reads by default.
const hfRevision = "main"

// hfRoot returns the local folder or file the rows are read from:
// --dataset-path itself when it exists, else the cache's snapshot of the
// Hub dataset it names, downloading the subset's and split's data files
// into the cache first unless HF_HUB_OFFLINE is set.
func hfRoot(opts Options, subset, split string) (string, error) {
	if _, err := os.Stat(opts.Path); err == nil || !errors.Is(err, fs.ErrNotExist) {
		return opts.Path, err
	}
	if !hfhub.IsRepoID(opts.Path) {
		return "", exitcode.Usagef("--dataset-path %s: not a local file or directory, nor a Hub dataset id", opts.Path)
	}
	h := opts.Hub
	if h == nil {
		return "", fmt.Errorf("--dataset-path %s: not a local file or directory, and Hub downloads are %w here", opts.Path, exitcode.ErrNotSupported)
	}
	getenv := h.Getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	cache, from := hfhub.CacheDir(getenv)
	ep, err := url.Parse(hfhub.Endpoint(getenv))
	if err != nil || ep.Host == "" {
		return "", exitcode.Usagef("HF_ENDPOINT %q is not a URL", hfhub.Endpoint(getenv))
	}
	c := &hfhub.Client{HTTP: h.HTTP, Endpoint: ep, Token: hfhub.Token(getenv), Cache: cache}
	repo := hfhub.Repo{Kind: hfhub.Dataset, ID: opts.Path}
	if hfhub.Offline(getenv) {
		commit, err := c.CachedCommit(repo, hfRevision)
		if err != nil {
			return "", fmt.Errorf("--dataset-path %s: HF_HUB_OFFLINE is set and the Hub cache (%s, from %s) does not hold the dataset: %w", opts.Path, cache, from, err)
		}
		return c.Snapshot(repo, commit), nil
	}
	return hfDownload(h.Ctx, c, repo, subset, split)
}

// hfDownload fetches the data files of a subset and a split of a Hub
// dataset into the cache and returns the snapshot folder.
func hfDownload(ctx context.Context, c *hfhub.Client, repo hfhub.Repo, subset, split string) (string, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	commit, files, err := c.Files(ctx, repo, hfRevision)
	if err != nil {
		return "", fmt.Errorf("--dataset-path %s: %w", repo.ID, err)
	}
	picked, err := hffiles.Select(files, subset, split, isDataFile)
	if err != nil {
		return "", exitcode.Usage(fmt.Errorf("--dataset-path %s (the Hub's files at %s): %w", repo.ID, commit, err))
	}
	snap := c.Snapshot(repo, commit)
	for _, f := range picked {
		m, err := c.Head(ctx, repo, commit, f)
		if err != nil {
			return "", fmt.Errorf("--dataset-path %s: %w", repo.ID, err)
		}
		if err := c.Fetch(ctx, c.Folder(repo), snap, f, m, maxDataFileBytes); err != nil {
			return "", fmt.Errorf("--dataset-path %s: %w", repo.ID, err)
		}
	}
	if err := c.SaveRef(repo, hfRevision, commit); err != nil {
		return "", err
	}
	return snap, nil
}
