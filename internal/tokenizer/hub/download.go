package hub

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/gobench/gobench/internal/readlimit"
)

// errNotFound means the Hub has no such file (or repository).
var errNotFound = errors.New("not found")

// downloader fetches tokenizer files from the Hub into the cache, with the
// layout huggingface_hub uses, so that Python tools find them too:
//
//	models--org--name/blobs/<etag>                 the content
//	models--org--name/snapshots/<commit>/<file>    a relative symlink to it
//	models--org--name/refs/<revision>              the commit of a branch
//	models--org--name/.no_exist/<commit>/<file>    a file the Hub does not have
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

// download fetches tokenizer.json and the optional files of repo at
// revision and returns the snapshot folder.
func (d *downloader) download(ctx context.Context, repo, revision string) (string, error) {
	folder := repoFolder(d.cache, repo)
	meta, err := d.head(ctx, repo, revision, requiredFile)
	if err != nil {
		return "", err
	}
	snap := filepath.Join(folder, "snapshots", meta.commit)
	if err := d.fetch(ctx, folder, snap, requiredFile, meta); err != nil {
		return "", err
	}
	for _, f := range optionalFiles {
		m, err := d.head(ctx, repo, meta.commit, f)
		if errors.Is(err, errNotFound) {
			d.debug("tokenizer: %s has no %s", repo, f)
			_ = markMissing(folder, meta.commit, f)
			continue
		}
		if err != nil {
			return "", err
		}
		if err := d.fetch(ctx, folder, snap, f, m); err != nil {
			return "", err
		}
	}
	if revision != meta.commit {
		ref := filepath.Join(folder, "refs", filepath.FromSlash(revision))
		if err := writeFileAtomic(ref, []byte(meta.commit)); err != nil {
			return "", fmt.Errorf("save %s: %w", ref, err)
		}
	}
	return snap, nil
}

// resolveURL is the Hub's URL of a file at a revision.
func (d *downloader) resolveURL(repo, revision, file string) string {
	u := *d.endpoint
	u.Path = strings.TrimSuffix(u.Path, "/") + "/" + repo + "/resolve/" + url.PathEscape(revision) + "/" + file
	return u.String()
}

// head asks the Hub for a file's commit and etag without downloading it,
// like huggingface_hub's get_hf_file_metadata: redirects within the Hub
// (a renamed repository) are followed, a redirect elsewhere (the CDN that
// serves large files) is where the content will be fetched from.
func (d *downloader) head(ctx context.Context, repo, revision, file string) (*fileMeta, error) {
	target := d.resolveURL(repo, revision, file)
	noRedirect := *d.client
	noRedirect.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	for hops := 0; ; hops++ {
		req, err := http.NewRequestWithContext(ctx, http.MethodHead, target, nil)
		if err != nil {
			return nil, err
		}
		d.authorize(req)
		req.Header.Set("Accept-Encoding", "identity")
		resp, err := noRedirect.Do(req)
		if err != nil {
			return nil, fmt.Errorf("HEAD %s: %w", target, err)
		}
		resp.Body.Close()
		switch {
		case resp.StatusCode == http.StatusNotFound:
			if resp.Header.Get("X-Error-Code") == "RepositoryNotFound" {
				return nil, fmt.Errorf("HEAD %s: %s: the repository does not exist, or is private or gated (set HF_TOKEN to a token that may read it)", target, resp.Status)
			}
			return nil, fmt.Errorf("%s: %w", file, errNotFound)
		case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
			return nil, fmt.Errorf("HEAD %s: %s: the repository is private or gated; set HF_TOKEN to a token that may read it", target, resp.Status)
		case resp.StatusCode >= 300 && resp.StatusCode < 400:
			loc, err := resp.Location()
			if err != nil {
				return nil, fmt.Errorf("HEAD %s: %s without a usable Location: %w", target, resp.Status, err)
			}
			if loc.Host == d.endpoint.Host && hops < 5 {
				target = loc.String()
				continue
			}
			return d.meta(resp, loc.String(), target)
		case resp.StatusCode == http.StatusOK:
			return d.meta(resp, target, target)
		default:
			return nil, fmt.Errorf("HEAD %s: %s", target, resp.Status)
		}
	}
}

// meta reads the commit and etag headers of a HEAD answer.
func (d *downloader) meta(resp *http.Response, location, target string) (*fileMeta, error) {
	m := &fileMeta{commit: resp.Header.Get("X-Repo-Commit"), location: location}
	m.etag = resp.Header.Get("X-Linked-Etag")
	if m.etag == "" {
		m.etag = resp.Header.Get("ETag")
	}
	m.etag = strings.Trim(strings.TrimPrefix(m.etag, "W/"), `"`)
	if !commitPattern.MatchString(m.commit) {
		return nil, fmt.Errorf("HEAD %s: the answer has no commit hash (X-Repo-Commit %q): is HF_ENDPOINT a Hugging Face Hub?", target, m.commit)
	}
	if m.etag == "" || strings.ContainsAny(m.etag, `/\`) || m.etag == "." || m.etag == ".." {
		return nil, fmt.Errorf("HEAD %s: the answer has no usable ETag (%q)", target, m.etag)
	}
	return m, nil
}

// fetch downloads one file into blobs/<etag> (unless it is there) and
// links it from the snapshot.
func (d *downloader) fetch(ctx context.Context, folder, snap, file string, m *fileMeta) error {
	blob := filepath.Join(folder, "blobs", m.etag)
	if _, err := os.Stat(blob); err != nil {
		d.debug("tokenizer: downloading %s", m.location)
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, m.location, nil)
		if err != nil {
			return err
		}
		d.authorize(req)
		resp, err := d.tokenOnlyToHub().Do(req)
		if err != nil {
			return fmt.Errorf("download %s: %w", file, err)
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("download %s: GET %s: %s", file, redact(m.location), resp.Status)
		}
		if err := writeAtomic(blob, resp.Body, maxDownloadBytes); err != nil {
			return fmt.Errorf("save %s: %w", blob, err)
		}
	}
	link := filepath.Join(snap, file)
	if err := os.MkdirAll(snap, 0o755); err != nil {
		return err
	}
	rel, err := filepath.Rel(snap, blob)
	if err != nil {
		return err
	}
	_ = os.Remove(link)
	if err := os.Symlink(rel, link); err != nil {
		// Without symlinks (some file systems), copy as huggingface_hub does.
		data, rerr := os.ReadFile(blob)
		if rerr != nil {
			return fmt.Errorf("link %s: %w", link, err)
		}
		if err := writeFileAtomic(link, data); err != nil {
			return fmt.Errorf("save %s: %w", link, err)
		}
	}
	return nil
}

// authorize adds HF_TOKEN to requests for the Hub itself, never to
// another host (the CDN a large file redirects to gets no token, and
// tokenOnlyToHub drops it from redirects that leave the Hub).
func (d *downloader) authorize(req *http.Request) {
	if d.token != "" && req.URL.Host == d.endpoint.Host && req.URL.Scheme == d.endpoint.Scheme {
		req.Header.Set("Authorization", "Bearer "+d.token)
	}
}

// tokenOnlyToHub is d.client following redirects (the Hub sends files to
// its CDN) with HF_TOKEN kept for the Hub's own origin. Go's client drops
// Authorization only when the host name leaves the domain, so it would
// carry the token to a sub-domain (huggingface.co to
// cdn-lfs.huggingface.co) or another port; huggingface_hub's HTTP clients
// drop it there too.
func (d *downloader) tokenOnlyToHub() *http.Client {
	c := *d.client
	c.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if len(via) >= 10 {
			return errors.New("stopped after 10 redirects")
		}
		if req.URL.Host != d.endpoint.Host || req.URL.Scheme != d.endpoint.Scheme {
			req.Header.Del("Authorization")
		}
		return nil
	}
	return &c
}

// redact drops the query of a URL (signed CDN URLs carry credentials).
func redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(bad URL)"
	}
	u.RawQuery = ""
	return u.String()
}

// markMissing records, as huggingface_hub does, that the Hub has no such
// file at this commit.
func markMissing(folder, commit, file string) error {
	p := filepath.Join(folder, ".no_exist", commit, file)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return os.WriteFile(p, nil, 0o644)
}

// maxDownloadBytes bounds a downloaded file: the most the tokenizer reads
// from one (tokenizer's maxFileBytes), so that a Hub (or an HF_ENDPOINT)
// that answers with an endless body cannot fill the disk.
const maxDownloadBytes = 256 << 20

// writeAtomic writes r to path through a temporary file in the same
// folder, synced before it is renamed into place, and refuses a body
// larger than limit bytes.
func writeAtomic(path string, r io.Reader, limit int64) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".incomplete-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	n, err := io.Copy(tmp, io.LimitReader(r, limit+1))
	if err == nil && n > limit {
		err = fmt.Errorf("the file is larger than %s, the most gobench reads from a tokenizer file", readlimit.Size(limit))
	}
	if err == nil {
		err = tmp.Sync()
	}
	if err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

func writeFileAtomic(path string, data []byte) error {
	return writeAtomic(path, strings.NewReader(string(data)), int64(len(data)))
}
