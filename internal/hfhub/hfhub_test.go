package hfhub

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestFiles: the repository listing gives the commit and the files, drops
// names that would leave the snapshot folder, and refuses an answer
// without a commit hash; the token goes to the Hub.
func TestFiles(t *testing.T) {
	t.Parallel()
	const sha = "0123456789abcdef0123456789abcdef01234567"
	answers := map[string]string{
		"/api/datasets/a/ok/revision/main":  `{"sha": "` + sha + `", "siblings": [{"rfilename": "x/train.parquet"}, {"rfilename": "../evil"}, {"rfilename": "/abs"}, {"rfilename": "a/../../b"}]}`,
		"/api/datasets/a/bad/revision/main": `{"sha": "main", "siblings": []}`,
	}
	hub := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer t" {
			http.Error(w, "token", http.StatusUnauthorized)
			return
		}
		_, _ = io.WriteString(w, answers[r.URL.Path])
	}))
	defer hub.Close()
	ep, _ := url.Parse(hub.URL)
	c := &Client{HTTP: hub.Client(), Endpoint: ep, Token: "t", Cache: t.TempDir()}
	commit, files, err := c.Files(context.Background(), Repo{Kind: Dataset, ID: "a/ok"}, "main")
	if err != nil || commit != sha {
		t.Fatalf("commit %q, err %v", commit, err)
	}
	if diff := cmp.Diff([]string{"x/train.parquet"}, files); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
	if _, _, err := c.Files(context.Background(), Repo{Kind: Dataset, ID: "a/bad"}, "main"); err == nil || !strings.Contains(err.Error(), "no commit hash") {
		t.Errorf("bad sha: err = %v", err)
	}
	c.Token = ""
	if _, _, err := c.Files(context.Background(), Repo{Kind: Dataset, ID: "a/ok"}, "main"); err == nil || !strings.Contains(err.Error(), "set HF_TOKEN") {
		t.Errorf("no token: err = %v", err)
	}
	if got := c.Folder(Repo{Kind: Dataset, ID: "a/ok"}); !strings.HasSuffix(got, "datasets--a--ok") {
		t.Errorf("folder %s", got)
	}
}
