package redact

import "testing"

func TestURL(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"http://127.0.0.1:8000", "http://127.0.0.1:8000"},
		{"https://u:p@h:1/v1?api_key=s3&x=1#f", "https://<redacted>@h:1/v1?api_key=<redacted>&x=1#f"},
		{"http://key@h/metrics", "http://<redacted>@h/metrics"},
		// The last @ of the authority ends the user information.
		{"http://u:p@ss@h/", "http://<redacted>@h/"},
		// An @ after the authority is no user information.
		{"http://h/a@b?token=t", "http://h/a@b?token=<redacted>"},
		// Not parseable by net/url, and still redacted.
		{"http://u:p@h:port:x/%zz?Signature=abc", "http://<redacted>@h:port:x/%zz?Signature=<redacted>"},
		{"--num-prompts", "--num-prompts"},
		{"key=value", "key=value"},
	} {
		if got := URL(c.in); got != c.want {
			t.Errorf("URL(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestIsCredential(t *testing.T) {
	for name, want := range map[string]bool{
		"Authorization": true, "X-API-Key": true, "Cookie": true, "access_token": true,
		"X-Amz-Signature": true, "Proxy-Authorization": true, "X-Tenant": false, "model": false,
	} {
		if got := IsCredential(name); got != want {
			t.Errorf("IsCredential(%q) = %v, want %v", name, got, want)
		}
	}
}

func FuzzURL(f *testing.F) {
	f.Add("https://u:p@h:1/v1?api_key=s3&x=1#f")
	f.Add("http://h?token")
	f.Fuzz(func(t *testing.T, s string) {
		got := URL(s)
		// Redacting twice changes nothing more.
		if again := URL(got); again != got {
			t.Errorf("URL(URL(%q)) = %q, want %q", s, again, got)
		}
	})
}
