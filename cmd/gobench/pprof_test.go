package main

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestServePprof: a loopback address serves the profiles' index; any
// other address is refused with a word on stderr.
func TestServePprof(t *testing.T) {
	t.Parallel()
	for _, addr := range []string{"0.0.0.0:0", ":0", "example.com:80", "127.0.0.1"} {
		var stderr strings.Builder
		servePprof(addr, &stderr)
		if !strings.Contains(stderr.String(), "no profiles are served") {
			t.Errorf("%s: stderr %q, want a refusal", addr, stderr.String())
		}
	}
	ln, err := listenLoopback("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	var stderr strings.Builder
	servePprof(addr, &stderr)
	if stderr.Len() != 0 {
		t.Fatalf("stderr %q", stderr.String())
	}
	resp, err := http.Get("http://" + addr + "/debug/pprof/")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(b), "heap") {
		t.Errorf("status %d, body %.200q", resp.StatusCode, b)
	}
}
