package evloop

import (
	"errors"
	"net"
	"testing"
)

// TestResolverCachesForTTL checks that a server's address is looked up
// once per dnsTTL (vLLM's aiohttp DNS cache of 300 s), per host, and that
// a failed lookup is tried again by the next request.
func TestResolverCachesForTTL(t *testing.T) {
	t.Parallel()
	now := 0.0
	lookups := map[string]int{}
	fail := true
	r := newResolver(func() float64 { return now })
	r.lookup = func(_, host string) (*net.TCPAddr, error) {
		lookups[host]++
		if host == "flaky:80" && fail {
			return nil, errors.New("no such host")
		}
		return &net.TCPAddr{IP: net.IPv4(10, 0, 0, byte(lookups[host])), Port: 80}, nil
	}
	steps := []struct {
		at      float64
		host    string
		wantIP  string // "" for an error
		lookups int    // of host, after the step
	}{
		{0, "vllm:80", "10.0.0.1", 1},
		{1, "vllm:80", "10.0.0.1", 1},
		{299.9, "vllm:80", "10.0.0.1", 1},
		{300, "vllm:80", "10.0.0.2", 2}, // expired: looked up again
		{300, "other:80", "10.0.0.1", 1},
		{301, "flaky:80", "", 1},
		{302, "flaky:80", "", 2}, // a failure is not cached
	}
	for i, s := range steps {
		now = s.at
		addr, err := r.resolve(s.host)
		switch {
		case s.wantIP == "" && err == nil:
			t.Errorf("step %d: %s resolved to %v, want an error", i, s.host, addr)
		case s.wantIP != "" && (err != nil || addr.IP.String() != s.wantIP):
			t.Errorf("step %d: %s = %v, %v; want %s", i, s.host, addr, err, s.wantIP)
		}
		if lookups[s.host] != s.lookups {
			t.Errorf("step %d: %d lookups of %s, want %d", i, lookups[s.host], s.host, s.lookups)
		}
	}
	fail = false
	now = 303
	if addr, err := r.resolve("flaky:80"); err != nil || lookups["flaky:80"] != 3 {
		t.Errorf("after the failures: %v, %v after %d lookups; want an address after 3", addr, err, lookups["flaky:80"])
	}
}
