// Package hfhub downloads files of Hugging Face Hub repositories (models
// and datasets) into the Hub's cache, as huggingface_hub does, so that
// Python tools find them too and a second run needs no network:
//
//	<kind>s--org--name/blobs/<etag>                 the content
//	<kind>s--org--name/snapshots/<commit>/<file>    a relative symlink to it
//	<kind>s--org--name/refs/<revision>              the commit of a branch
//	<kind>s--org--name/.no_exist/<commit>/<file>    a file the Hub does not have
//
// It reads the environment huggingface_hub reads (HF_HOME, HF_HUB_CACHE,
// HF_ENDPOINT, HF_TOKEN, HF_HUB_OFFLINE). HF_TOKEN is sent only to the
// Hub's own origin, never to the CDN a large file redirects to, and never
// logged. Every download is bounded and synced before it is renamed into
// place. The tokenizer (internal/tokenizer/hub) and the hf dataset use it.
package hfhub

import (
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
)

// DefaultEndpoint is the Hugging Face Hub, used when HF_ENDPOINT is unset.
const DefaultEndpoint = "https://huggingface.co"

// Kind is what a repository holds.
type Kind string

// The kinds of repositories gobench downloads from.
const (
	Model   Kind = "model"
	Dataset Kind = "dataset"
)

// Repo names one repository of the Hub.
type Repo struct {
	Kind Kind
	// ID is "name" or "org/name".
	ID string
}

// folderName is the repository's folder in the cache:
// models--org--name or datasets--org--name.
func (r Repo) folderName() string {
	return string(r.Kind) + "s--" + strings.ReplaceAll(r.ID, "/", "--")
}

// urlPrefix is what the Hub's URLs put before the id ("datasets/" for a
// dataset, nothing for a model).
func (r Repo) urlPrefix() string {
	if r.Kind == Model {
		return ""
	}
	return string(r.Kind) + "s/"
}

// repoIDPattern is what the Hub accepts as a repository id: "name" or
// "org/name", made of letters, digits, '-', '_' and '.'.
var repoIDPattern = regexp.MustCompile(`^(?:[A-Za-z0-9][A-Za-z0-9._-]*/)?[A-Za-z0-9][A-Za-z0-9._-]*$`)

// IsRepoID reports whether name can be a Hub repository id.
func IsRepoID(name string) bool {
	return repoIDPattern.MatchString(name) && !strings.Contains(name, "..")
}

// CommitPattern is a full commit hash, which names a snapshot directly.
var CommitPattern = regexp.MustCompile(`^[0-9a-f]{40}$`)

// CacheDir is the Hugging Face hub cache, chosen as huggingface_hub chooses
// it: HF_HUB_CACHE (or its old name HUGGINGFACE_HUB_CACHE), else
// HF_HOME/hub, else $XDG_CACHE_HOME/huggingface/hub, else
// ~/.cache/huggingface/hub. It also returns which variable decided, for
// messages.
func CacheDir(getenv func(string) string) (dir, from string) {
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

// Offline reports HF_HUB_OFFLINE (or TRANSFORMERS_OFFLINE) set to a true
// value, as huggingface_hub reads it.
func Offline(getenv func(string) string) bool {
	for _, v := range []string{"HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE"} {
		switch strings.ToUpper(strings.TrimSpace(getenv(v))) {
		case "1", "ON", "YES", "TRUE":
			return true
		}
	}
	return false
}

// Endpoint is HF_ENDPOINT, else the public Hub.
func Endpoint(getenv func(string) string) string {
	if e := strings.TrimSuffix(getenv("HF_ENDPOINT"), "/"); e != "" {
		return e
	}
	return DefaultEndpoint
}

// Token is HF_TOKEN, else its old name HUGGING_FACE_HUB_TOKEN.
func Token(getenv func(string) string) string {
	if t := getenv("HF_TOKEN"); t != "" {
		return t
	}
	return getenv("HUGGING_FACE_HUB_TOKEN")
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
