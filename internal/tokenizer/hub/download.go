package hub

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"

	"github.com/gobench/gobench/internal/hfhub"
)

// errNotFound means the Hub has no such file (or repository).
var errNotFound = hfhub.ErrNotFound

// downloader fetches tokenizer files from the Hub into the cache, with the
// layout huggingface_hub uses (package hfhub), so that Python tools find
// them too.
type downloader struct {
	client   *http.Client
	endpoint *url.URL
	token    string // HF_TOKEN, sent only to endpoint's host
	cache    string
	debug    func(format string, args ...any)
}

// fileMeta is what the Hub says about one file before it is downloaded.
type fileMeta struct {
	commit, etag string
	location     string // where the content is (the Hub or its CDN)
}

// hub is the Hub client of the downloader.
func (d *downloader) hub() *hfhub.Client {
	return &hfhub.Client{HTTP: d.client, Endpoint: d.endpoint, Token: d.token, Cache: d.cache, Debug: d.debug}
}

// model is repo as a model repository.
func model(repo string) hfhub.Repo { return hfhub.Repo{Kind: hfhub.Model, ID: repo} }

// download fetches tokenizer.json and the optional files of repo at
// revision and returns the snapshot folder.
func (d *downloader) download(ctx context.Context, repo, revision string) (string, error) {
	h := d.hub()
	folder := h.Folder(model(repo))
	meta, err := d.head(ctx, repo, revision, requiredFile)
	if err != nil {
		return "", err
	}
	snap := h.Snapshot(model(repo), meta.commit)
	if err := d.fetch(ctx, folder, snap, requiredFile, meta); err != nil {
		return "", err
	}
	for _, f := range optionalFiles {
		m, err := d.head(ctx, repo, meta.commit, f)
		if errors.Is(err, errNotFound) {
			d.debug("tokenizer: %s has no %s", repo, f)
			_ = h.MarkMissing(model(repo), meta.commit, f)
			continue
		}
		if err != nil {
			return "", err
		}
		if err := d.fetch(ctx, folder, snap, f, m); err != nil {
			return "", err
		}
	}
	if err := h.SaveRef(model(repo), revision, meta.commit); err != nil {
		return "", err
	}
	return snap, nil
}

// head asks the Hub for a file's commit and etag (hfhub.Client.Head).
func (d *downloader) head(ctx context.Context, repo, revision, file string) (*fileMeta, error) {
	m, err := d.hub().Head(ctx, model(repo), revision, file)
	if err != nil {
		return nil, err
	}
	return &fileMeta{commit: m.Commit, etag: m.ETag, location: m.Location}, nil
}

// fetch downloads one file into blobs/<etag> (unless it is there) and
// links it from the snapshot (hfhub.Client.Fetch).
func (d *downloader) fetch(ctx context.Context, folder, snap, file string, m *fileMeta) error {
	return d.hub().Fetch(ctx, folder, snap, file, &hfhub.FileMeta{Commit: m.commit, ETag: m.etag, Location: m.location}, maxDownloadBytes)
}

// maxDownloadBytes bounds a downloaded file: the most the tokenizer reads
// from one (tokenizer's maxFileBytes), so that a Hub (or an HF_ENDPOINT)
// that answers with an endless body cannot fill the disk.
const maxDownloadBytes = 256 << 20

// writeAtomic is hfhub.WriteAtomic.
func writeAtomic(path string, r io.Reader, limit int64) error {
	return hfhub.WriteAtomic(path, r, limit)
}
