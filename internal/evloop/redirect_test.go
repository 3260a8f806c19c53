package evloop

import "testing"

// TestRedirectError: which answers are redirects to net/http, and the
// error each gives (TestEnginesOnRawAnswers checks texts against
// net/http's records).
func TestRedirectError(t *testing.T) {
	t.Parallel()
	const base = "http://127.0.0.1:8000/v1/completions"
	const other = ": it points to another host, which would receive the request's headers (--header, the API key)"
	tests := []struct {
		name     string
		code     int
		status   string
		location string
		want     string
	}{
		{"302 same origin", 302, "302 Found", "/v1/x",
			"redirect not followed: HTTP 302 Found to http://127.0.0.1:8000/v1/x: following it would turn the POST into a GET"},
		{"303 relative", 303, "303 See Other", "x",
			"redirect not followed: HTTP 303 See Other to http://127.0.0.1:8000/v1/x: following it would turn the POST into a GET"},
		{"301 other host", 301, "301 Moved Permanently", "http://elsewhere.example/v1/completions",
			"redirect not followed: HTTP 301 Moved Permanently to http://elsewhere.example/v1/completions" + other},
		{"307 other port", 307, "307 Temporary Redirect", "http://127.0.0.1:8001/v1/completions",
			"redirect not followed: HTTP 307 Temporary Redirect to http://127.0.0.1:8001/v1/completions" + other},
		{"308 other scheme, password redacted", 308, "308 Permanent Redirect", "https://u:secret@127.0.0.1:8000/v1/completions",
			"redirect not followed: HTTP 308 Permanent Redirect to https://u:xxxxx@127.0.0.1:8000/v1/completions" + other},
		{"307 same origin", 307, "307 Temporary Redirect", "/v2/completions",
			"redirect not followed: HTTP 307 Temporary Redirect to http://127.0.0.1:8000/v2/completions: " + notFollowed},
		{"bad Location", 302, "302 Found", "/v1/%zz",
			`Post "` + base + `": failed to parse Location header "/v1/%zz": parse "/v1/%zz": invalid URL escape "%zz"`},
		// No redirect to net/http: backend.StatusError's record.
		{"no Location", 302, "302 Found", "", ""},
		{"300", 300, "300 Multiple Choices", "/v1/x", ""},
		{"304", 304, "304 Not Modified", "/v1/x", ""},
		{"200", 200, "200 OK", "/v1/x", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := redirectError(base, tt.code, tt.status, tt.location); got != tt.want {
				t.Errorf("redirectError:\n%q\nwant\n%q", got, tt.want)
			}
		})
	}
}
