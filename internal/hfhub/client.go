package hfhub

import (
	"context"
	"encoding/json"
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

// ErrNotFound means the Hub has no such file (or repository).
var ErrNotFound = errors.New("not found")

// Client downloads from one Hub into one cache.
type Client struct {
	// HTTP sends the requests.
	HTTP *http.Client
	// Endpoint is the Hub (HF_ENDPOINT).
	Endpoint *url.URL
	// Token is HF_TOKEN, sent only to Endpoint's origin.
	Token string
	// Cache is the Hub cache folder (CacheDir).
	Cache string
	// Debug logs what is downloaded; nil logs nothing.
	Debug func(format string, args ...any)
}

// FileMeta is what the Hub says about one file before it is downloaded.
type FileMeta struct {
	Commit, ETag string
	// Location is where the content is (the Hub or its CDN).
	Location string
}

func (c *Client) debug(format string, args ...any) {
	if c.Debug != nil {
		c.Debug(format, args...)
	}
}

// Folder is the repository's folder in the cache.
func (c *Client) Folder(r Repo) string { return filepath.Join(c.Cache, r.folderName()) }

// Snapshot is the folder of the repository's files at a commit.
func (c *Client) Snapshot(r Repo, commit string) string {
	return filepath.Join(c.Folder(r), "snapshots", commit)
}

// hubURL is a URL on the Hub: the endpoint's path followed by path.
func (c *Client) hubURL(path string) string {
	u := *c.Endpoint
	u.Path = strings.TrimSuffix(u.Path, "/") + "/" + path
	return u.String()
}

// resolveURL is the Hub's URL of a file at a revision.
func (c *Client) resolveURL(r Repo, revision, file string) string {
	return c.hubURL(r.urlPrefix() + r.ID + "/resolve/" + url.PathEscape(revision) + "/" + file)
}

// Head asks the Hub for a file's commit and etag without downloading it,
// like huggingface_hub's get_hf_file_metadata: redirects within the Hub
// (a renamed repository) are followed, a redirect elsewhere (the CDN that
// serves large files) is where the content will be fetched from. A file
// the Hub does not have is ErrNotFound.
func (c *Client) Head(ctx context.Context, r Repo, revision, file string) (*FileMeta, error) {
	target := c.resolveURL(r, revision, file)
	noRedirect := *c.HTTP
	noRedirect.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	for hops := 0; ; hops++ {
		req, err := http.NewRequestWithContext(ctx, http.MethodHead, target, nil)
		if err != nil {
			return nil, err
		}
		c.Authorize(req)
		req.Header.Set("Accept-Encoding", "identity")
		resp, err := noRedirect.Do(req)
		if err != nil {
			return nil, fmt.Errorf("HEAD %s: %w", target, err)
		}
		resp.Body.Close()
		switch {
		case resp.StatusCode >= 300 && resp.StatusCode < 400:
			loc, err := resp.Location()
			if err != nil {
				return nil, fmt.Errorf("HEAD %s: %s without a usable Location: %w", target, resp.Status, err)
			}
			if loc.Host == c.Endpoint.Host && hops < 5 {
				target = loc.String()
				continue
			}
			return meta(resp, loc.String(), target)
		case resp.StatusCode == http.StatusOK:
			return meta(resp, target, target)
		}
		return nil, statusError("HEAD", target, file, resp)
	}
}

// statusError is the error of a Hub answer that is not a success.
func statusError(method, target, file string, resp *http.Response) error {
	switch {
	case resp.StatusCode == http.StatusNotFound && resp.Header.Get("X-Error-Code") == "RepositoryNotFound":
		return fmt.Errorf("%s %s: %s: the repository does not exist, or is private or gated (set HF_TOKEN to a token that may read it)", method, target, resp.Status)
	case resp.StatusCode == http.StatusNotFound:
		return fmt.Errorf("%s: %w", file, ErrNotFound)
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
		return fmt.Errorf("%s %s: %s: the repository is private or gated; set HF_TOKEN to a token that may read it", method, target, resp.Status)
	}
	return fmt.Errorf("%s %s: %s", method, target, resp.Status)
}

// meta reads the commit and etag headers of a HEAD answer.
func meta(resp *http.Response, location, target string) (*FileMeta, error) {
	m := &FileMeta{Commit: resp.Header.Get("X-Repo-Commit"), Location: location}
	m.ETag = resp.Header.Get("X-Linked-Etag")
	if m.ETag == "" {
		m.ETag = resp.Header.Get("ETag")
	}
	m.ETag = strings.Trim(strings.TrimPrefix(m.ETag, "W/"), `"`)
	if !CommitPattern.MatchString(m.Commit) {
		return nil, fmt.Errorf("HEAD %s: the answer has no commit hash (X-Repo-Commit %q): is HF_ENDPOINT a Hugging Face Hub?", target, m.Commit)
	}
	if m.ETag == "" || strings.ContainsAny(m.ETag, `/\`) || m.ETag == "." || m.ETag == ".." {
		return nil, fmt.Errorf("HEAD %s: the answer has no usable ETag (%q)", target, m.ETag)
	}
	return m, nil
}

// Fetch downloads one file, at most limit bytes, into folder's
// blobs/<etag> (unless it is there) and links it from the snapshot folder
// snap.
func (c *Client) Fetch(ctx context.Context, folder, snap, file string, m *FileMeta, limit int64) error {
	blob := filepath.Join(folder, "blobs", m.ETag)
	if _, err := os.Stat(blob); err != nil {
		c.debug("hub: downloading %s", redact(m.Location))
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, m.Location, nil)
		if err != nil {
			return err
		}
		c.Authorize(req)
		resp, err := c.tokenOnlyToHub().Do(req)
		if err != nil {
			return fmt.Errorf("download %s: %w", file, err)
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("download %s: GET %s: %s", file, redact(m.Location), resp.Status)
		}
		if err := WriteAtomic(blob, resp.Body, limit); err != nil {
			return fmt.Errorf("save %s: %w", blob, err)
		}
	}
	link := filepath.Join(snap, filepath.FromSlash(file))
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		return err
	}
	rel, err := filepath.Rel(filepath.Dir(link), blob)
	if err != nil {
		return err
	}
	_ = os.Remove(link)
	if err := os.Symlink(rel, link); err != nil {
		// Without symlinks (some file systems), copy as huggingface_hub does.
		f, rerr := os.Open(blob)
		if rerr != nil {
			return fmt.Errorf("link %s: %w", link, err)
		}
		defer f.Close()
		if err := WriteAtomic(link, f, limit); err != nil {
			return fmt.Errorf("save %s: %w", link, err)
		}
	}
	return nil
}

// SaveRef records the commit a branch or tag named when it was
// downloaded (refs/<revision>).
func (c *Client) SaveRef(r Repo, revision, commit string) error {
	if revision == commit {
		return nil
	}
	ref := filepath.Join(c.Folder(r), "refs", filepath.FromSlash(revision))
	if err := WriteAtomic(ref, strings.NewReader(commit), int64(len(commit))); err != nil {
		return fmt.Errorf("save %s: %w", ref, err)
	}
	return nil
}

// CachedCommit reads the commit refs/<revision> names (a commit hash
// names itself).
func (c *Client) CachedCommit(r Repo, revision string) (string, error) {
	if CommitPattern.MatchString(revision) {
		return revision, nil
	}
	ref := filepath.Join(c.Folder(r), "refs", filepath.FromSlash(revision))
	b, err := os.ReadFile(ref)
	if err != nil {
		return "", fmt.Errorf("%s has no refs/%s: %w", c.Folder(r), revision, err)
	}
	commit := strings.TrimSpace(string(b))
	if !CommitPattern.MatchString(commit) {
		return "", fmt.Errorf("%s: %q is not a commit hash", ref, commit)
	}
	return commit, nil
}

// MarkMissing records, as huggingface_hub does, that the Hub has no such
// file at this commit.
func (c *Client) MarkMissing(r Repo, commit, file string) error {
	p := filepath.Join(c.Folder(r), ".no_exist", commit, filepath.FromSlash(file))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return os.WriteFile(p, nil, 0o644)
}

// maxListingBytes bounds the Hub's answer that lists a repository.
const maxListingBytes = 64 << 20

// Files lists a repository's files at a revision and the commit it names
// (huggingface_hub's repo_info: GET /api/<kind>s/<id>/revision/<rev>).
func (c *Client) Files(ctx context.Context, r Repo, revision string) (commit string, files []string, err error) {
	target := c.hubURL("api/" + string(r.Kind) + "s/" + r.ID + "/revision/" + url.PathEscape(revision))
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
	if err != nil {
		return "", nil, err
	}
	c.Authorize(req)
	resp, err := c.tokenOnlyToHub().Do(req)
	if err != nil {
		return "", nil, fmt.Errorf("GET %s: %w", target, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", nil, statusError("GET", target, r.ID, resp)
	}
	var info struct {
		SHA      string `json:"sha"`
		Siblings []struct {
			RFilename string `json:"rfilename"`
		} `json:"siblings"`
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxListingBytes))
	if err != nil {
		return "", nil, fmt.Errorf("GET %s: %w", target, err)
	}
	if err := json.Unmarshal(body, &info); err != nil {
		return "", nil, fmt.Errorf("GET %s: not the Hub's repository information: %w", target, err)
	}
	if !CommitPattern.MatchString(info.SHA) {
		return "", nil, fmt.Errorf("GET %s: the answer has no commit hash (sha %q): is HF_ENDPOINT a Hugging Face Hub?", target, info.SHA)
	}
	for _, s := range info.Siblings {
		if s.RFilename != "" && !strings.Contains("/"+s.RFilename+"/", "/../") && !strings.HasPrefix(s.RFilename, "/") {
			files = append(files, s.RFilename)
		}
	}
	return info.SHA, files, nil
}

// Authorize adds HF_TOKEN to requests for the Hub itself, never to
// another host (the CDN a large file redirects to gets no token, and
// tokenOnlyToHub drops it from redirects that leave the Hub).
func (c *Client) Authorize(req *http.Request) {
	if c.Token != "" && req.URL.Host == c.Endpoint.Host && req.URL.Scheme == c.Endpoint.Scheme {
		req.Header.Set("Authorization", "Bearer "+c.Token)
	}
}

// tokenOnlyToHub is c.HTTP following redirects (the Hub sends files to
// its CDN) with HF_TOKEN kept for the Hub's own origin. Go's client drops
// Authorization only when the host name leaves the domain, so it would
// carry the token to a sub-domain (huggingface.co to
// cdn-lfs.huggingface.co) or another port; huggingface_hub's HTTP clients
// drop it there too.
func (c *Client) tokenOnlyToHub() *http.Client {
	hc := *c.HTTP
	hc.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if len(via) >= 10 {
			return errors.New("stopped after 10 redirects")
		}
		if req.URL.Host != c.Endpoint.Host || req.URL.Scheme != c.Endpoint.Scheme {
			req.Header.Del("Authorization")
		}
		return nil
	}
	return &hc
}

// WriteAtomic writes r to path through a temporary file in the same
// folder, synced before it is renamed into place, and refuses a body
// larger than limit bytes, so that a Hub (or an HF_ENDPOINT) that answers
// with an endless body cannot fill the disk.
func WriteAtomic(path string, r io.Reader, limit int64) error {
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
		err = fmt.Errorf("the file is larger than %s, the most gobench downloads of such a file", readlimit.Size(limit))
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
