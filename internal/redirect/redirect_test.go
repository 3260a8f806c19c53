package redirect

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
)

func TestCheck(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, method, from, to string
		status                 int
		hops                   int
		want                   string // "" follows; else a part of the error
	}{
		{"same origin 307 POST", "POST", "http://h:8000/v1/completions", "http://h:8000/v2/completions", 307, 1, ""},
		{"same origin 308 POST", "POST", "http://h:8000/a", "http://H:8000/b", 308, 1, ""},
		{"default port written", "GET", "https://h/a", "https://h:443/b", 302, 1, ""},
		{"same origin 302 GET", "GET", "http://h:8000/metrics", "http://h:8000/m", 302, 1, ""},
		{"another host", "POST", "http://h:8000/a", "http://evil:8000/a", 307, 1, "HTTP 307 Temporary Redirect to http://evil:8000/a: it points to another host"},
		{"another port", "POST", "http://h:8000/a", "http://h:8001/a", 308, 1, "to http://h:8001/a: it points to another host"},
		{"another scheme", "GET", "https://h/a", "http://h:443/a", 301, 1, "it points to another host"},
		{"a sub-domain", "GET", "http://h.example/a", "http://x.h.example/a", 302, 1, "it points to another host"},
		{"POST made a GET", "POST", "http://h:8000/a", "http://h:8000/b", 302, 1, "HTTP 302 Found to http://h:8000/b: following it would turn the POST into a GET"},
		{"303 POST", "POST", "http://h:8000/a", "http://h:8000/b", 303, 1, "turn the POST into a GET"},
		{"password redacted", "GET", "http://h/a", "http://u:secret@evil/a", 302, 1, "to http://u:xxxxx@evil/a"},
		{"too many hops", "GET", "http://h/a", "http://h/b", 302, 10, "stopped after 10 redirects"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			first, err := http.NewRequest(tt.method, tt.from, nil)
			if err != nil {
				t.Fatal(err)
			}
			method := tt.method
			if tt.status <= 303 && method == "POST" {
				method = "GET" // what net/http does before asking
			}
			next, err := http.NewRequest(method, tt.to, nil)
			if err != nil {
				t.Fatal(err)
			}
			next.Response = &http.Response{StatusCode: tt.status, Status: statusLine(tt.status)}
			via := []*http.Request{first}
			for len(via) < tt.hops {
				via = append(via, first)
			}
			err = Check(next, via)
			if tt.want == "" {
				if err != nil {
					t.Errorf("not followed: %v", err)
				}
				return
			}
			var re *Error
			if !errors.As(err, &re) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want an *Error containing %q", err, tt.want)
			}
		})
	}
}

func statusLine(code int) string { return strconv.Itoa(code) + " " + http.StatusText(code) }

// TestClient: through a real http.Client, a POST's redirect to another
// server is refused before that server receives anything (headers
// included), and a same-origin 307 is followed with the body sent again.
func TestClient(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var other []string
	elsewhere := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		other = append(other, r.Method+" "+r.Header.Get("X-Api-Key"))
		mu.Unlock()
	}))
	defer elsewhere.Close()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/away":
			http.Redirect(w, r, elsewhere.URL+"/v1/completions", http.StatusTemporaryRedirect)
		case "/moved":
			http.Redirect(w, r, "/here", http.StatusTemporaryRedirect)
		case "/here":
			b, _ := io.ReadAll(r.Body)
			io.WriteString(w, r.Method+" "+r.Header.Get("X-Api-Key")+" "+string(b))
		}
	}))
	defer srv.Close()
	hc := Client(srv.Client())
	post := func(path string) (string, error) {
		req, _ := http.NewRequest("POST", srv.URL+path, strings.NewReader(`{"p":1}`))
		req.Header.Set("X-Api-Key", "k")
		resp, err := hc.Do(req)
		if err != nil {
			return "", err
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return string(b), nil
	}
	_, err := post("/away")
	var ue *url.Error
	var re *Error
	if !errors.As(err, &ue) || !errors.As(err, &re) || re.Location != elsewhere.URL+"/v1/completions" {
		t.Errorf("err = %v, want a *url.Error wrapping an *Error naming the Location", err)
	}
	mu.Lock()
	if len(other) != 0 {
		t.Errorf("the other host received %q", other)
	}
	mu.Unlock()
	if got, err := post("/moved"); err != nil || got != `POST k {"p":1}` {
		t.Errorf("same-origin 307: %q, %v", got, err)
	}
	if srv.Client().CheckRedirect != nil {
		t.Error("Client modified the client it was given")
	}
}
