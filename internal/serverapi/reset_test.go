package serverapi

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestResetCaches: the resets are bodiless POSTs in order, and a refusal
// names the endpoint and the development mode vLLM needs for it.
func TestResetCaches(t *testing.T) {
	t.Parallel()
	f := &fakeServer{}
	srv := httptest.NewServer(f)
	defer srv.Close()
	c := &Client{HTTP: srv.Client(), BaseURL: srv.URL}
	if err := c.ResetCaches(context.Background(), VLLMCacheResets...); err != nil {
		t.Fatal(err)
	}
	if err := c.ResetPrefixCache(context.Background()); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range f.calls {
		if s.method != http.MethodPost || s.body != "" || s.header.Get("Content-Type") != "" {
			t.Errorf("%s %s with body %q and Content-Type %q, want a bodiless POST", s.method, s.path, s.body, s.header.Get("Content-Type"))
		}
		got = append(got, s.path)
	}
	want := append(append([]string{}, VLLMCacheResets...), "/reset_prefix_cache")
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("paths (-want +got):\n%s", diff)
	}

	refuse := httptest.NewServer(http.NotFoundHandler())
	defer refuse.Close()
	err := (&Client{HTTP: refuse.Client(), BaseURL: refuse.URL}).ResetPrefixCache(context.Background())
	if err == nil || !strings.Contains(err.Error(), "404") || !strings.Contains(err.Error(), "VLLM_SERVER_DEV_MODE=1") {
		t.Errorf("error %v, want the 404 and VLLM_SERVER_DEV_MODE=1", err)
	}
}
