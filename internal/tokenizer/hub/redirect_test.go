package hub

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// TestTokenStaysOnTheHub: a download the Hub redirects elsewhere follows
// the redirect (the CDN serves large files) but carries HF_TOKEN only to
// the Hub's own origin. Go's client drops Authorization when the host name
// leaves the domain, not on another port or a sub-domain
// (huggingface.co to cdn-lfs.huggingface.co), where huggingface_hub drops
// it too.
func TestTokenStaysOnTheHub(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var got []string // "server auth"
	record := func(who string, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, who+" "+r.Header.Get("Authorization"))
	}
	cdn := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		record("cdn", r)
		w.Write([]byte("{}"))
	}))
	defer cdn.Close()
	cdnURL, _ := url.Parse(cdn.URL)
	hub := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		record("hub", r)
		switch r.URL.Path {
		case "/again": // within the Hub first
			http.Redirect(w, r, "/"+r.URL.Query().Get("to"), http.StatusFound)
		case "/port": // the same host name, another port
			http.Redirect(w, r, cdn.URL+"/blob", http.StatusFound)
		case "/host": // another host name
			http.Redirect(w, r, "http://localhost:"+cdnURL.Port()+"/blob", http.StatusFound)
		}
	}))
	defer hub.Close()
	ep, _ := url.Parse(hub.URL)
	for _, path := range []string{"/port", "/host", "/again?to=port"} {
		mu.Lock()
		got = nil
		mu.Unlock()
		cache := t.TempDir()
		d := &downloader{client: hub.Client(), endpoint: ep, token: testToken, cache: cache, debug: func(string, ...any) {}}
		folder := filepath.Join(cache, "models--a--b")
		err := d.fetch(context.Background(), folder, filepath.Join(folder, "snapshots", testCommit), "tokenizer_config.json",
			&fileMeta{commit: testCommit, etag: "e" + strings.Trim(path, "/?=")[:3], location: hub.URL + path})
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		mu.Lock()
		for _, g := range got {
			if who, auth, _ := strings.Cut(g, " "); (who == "hub") != (auth == "Bearer "+testToken) {
				t.Errorf("%s: %s received Authorization %q", path, who, auth)
			}
		}
		if len(got) == 0 || !strings.HasPrefix(got[len(got)-1], "cdn") {
			t.Errorf("%s: requests %q, want the last at the CDN", path, got)
		}
		mu.Unlock()
	}
}
