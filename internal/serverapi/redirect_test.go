package serverapi

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestRedirects: the side calls carry the user's headers, so they follow
// package redirect's rule: every call redirected to
// another host fails naming the Location and that host receives nothing
// (Go's own client would re-send X-Tenant there, and Authorization too on
// the same host name); a POST is never turned into a GET; a same-origin
// redirect of a GET is followed, headers and all.
func TestRedirects(t *testing.T) {
	t.Parallel()
	other := &fakeServer{}
	elsewhere := httptest.NewServer(other)
	defer elsewhere.Close()
	away := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, elsewhere.URL+r.URL.Path, http.StatusTemporaryRedirect)
	}))
	defer away.Close()
	h := http.Header{"Authorization": {"Bearer sk-1"}, "X-Tenant": {"t1"}}
	for _, e := range every {
		err := e.call(context.Background(), &Client{HTTP: away.Client(), BaseURL: away.URL, Header: h})
		want := "redirect not followed: HTTP 307 Temporary Redirect to " + elsewhere.URL + e.path + ": it points to another host"
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err = %v, want it to say %q", e.name, err, want)
		}
	}
	other.mu.Lock()
	if len(other.calls) != 0 {
		t.Errorf("the other host received %d calls: %v", len(other.calls), other.calls)
	}
	other.mu.Unlock()

	local := &fakeServer{}
	mux := http.NewServeMux()
	mux.Handle("/", local)
	mux.HandleFunc("/old/", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, strings.TrimPrefix(r.URL.Path, "/old"), http.StatusFound)
	})
	here := httptest.NewServer(mux)
	defer here.Close()
	c := &Client{HTTP: here.Client(), BaseURL: here.URL + "/old", Header: h}
	if _, err := c.Metrics(context.Background()); err != nil {
		t.Errorf("same-origin GET redirect: %v", err)
	} else {
		local.mu.Lock()
		got := local.calls[len(local.calls)-1]
		local.mu.Unlock()
		if got.path != "/metrics" || got.header.Get("X-Tenant") != "t1" || got.header.Get("Authorization") != "Bearer sk-1" {
			t.Errorf("followed to %s with headers %v", got.path, got.header)
		}
	}
	_, err := c.Tokenize(context.Background(), "m", "p", false)
	want := "redirect not followed: HTTP 302 Found to " + here.URL + "/tokenize: following it would turn the POST into a GET"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("POST /tokenize answered 302: err = %v, want it to say %q", err, want)
	}
}
