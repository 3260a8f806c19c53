package backend

import (
	"strings"
	"testing"
)

// TestHeaderCheck: the headers net/http would refuse or drop are refused,
// naming the header and never its value.
func TestHeaderCheck(t *testing.T) {
	t.Parallel()
	tests := []struct {
		h    Header
		want string // "" when valid
	}{
		{Header{"X-Api-Key", "secret"}, ""},
		{Header{"x-weird!#$%&'*+-.^_`|~9", "a\tb é"}, ""},
		{Header{"Authorization", ""}, ""},
		{Header{"User-Agent", "bench"}, ""},
		{Header{"", "secret"}, "a header needs a name"},
		{Header{"Host", "x"}, "header Host is set by the HTTP client"},
		{Header{"hOsT", "x"}, "header Host is set by the HTTP client"},
		{Header{"content-length", "5"}, "header Content-Length is set by the HTTP client"},
		{Header{"Transfer-Encoding", "chunked"}, "header Transfer-Encoding"},
		{Header{"Trailer", "x"}, "header Trailer"},
		{Header{"X Key", "secret"}, `header name "X Key" is not an HTTP token`},
		{Header{"X:Key", "secret"}, `header name "X:Key" is not an HTTP token`},
		{Header{"X-Key\n", "secret"}, `header name "X-Key\n" is not an HTTP token`},
		{Header{"X-Ké", "secret"}, "is not an HTTP token"},
		{Header{"x-key", "sec\r\nret"}, `header X-Key: the value holds the control character '\r' at byte 3, which HTTP forbids`},
		{Header{"x-key", "secret\n"}, `the control character '\n' at byte 6`},
		{Header{"x-key", "sec\x00"}, `the control character '\x00'`},
		{Header{"x-key", "sec\x7f"}, `the control character '\x7f'`},
	}
	for _, tt := range tests {
		err := tt.h.Check()
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%q: %v", tt.h, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("%q: %v, want %q", tt.h, err, tt.want)
		case err != nil && strings.Contains(err.Error(), "sec"+"ret"):
			t.Errorf("%q: the value is in the error %q", tt.h, err)
		}
	}
}
