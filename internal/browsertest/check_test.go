package browsertest

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestCheckFixture(t *testing.T) {
	browser := Require(t)
	res, err := Check(context.Background(), browser, "testdata/fixture.html", Options{Screenshot: true})
	if err != nil {
		t.Fatal(err)
	}
	got := make([]Chart, len(res.Charts))
	for i, c := range res.Charts {
		if c.Marks == 0 {
			t.Errorf("%s drew nothing", c.ID)
		}
		c.Marks = 0
		got[i] = c
	}
	want := []Chart{
		{ID: "chart-ttft", Series: 2, Points: 40, Caption: "TTFT over time (ms)", Tooltip: "point 10: 43.09 / 48.59 ms"},
		{ID: "chart-tokens", Series: 1, Points: 10, Caption: "Output tokens per second", Tooltip: "515.25 tok/s"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("charts (-want +got):\n%s", diff)
	}
	abs, _ := filepath.Abs("testdata/fixture.html")
	if diff := cmp.Diff([]string{"file://" + abs}, res.Requests); diff != "" {
		t.Errorf("requests (-want +got):\n%s", diff)
	}
	if !strings.Contains(res.Text, "Fixture report") {
		t.Errorf("page text %q lacks the heading", res.Text)
	}
	if !strings.HasPrefix(string(res.Screenshot), "\x89PNG") {
		t.Errorf("screenshot is not a PNG (%d bytes)", len(res.Screenshot))
	}
	if res.LoadTime <= 0 {
		t.Errorf("load time %v", res.LoadTime)
	}
	if pids := ProfileUsers(res.Profile); len(pids) != 0 {
		t.Errorf("browser processes outlived Check: %v", pids)
	}
	if _, err := os.Stat(res.Profile); !os.IsNotExist(err) {
		t.Errorf("profile %s left behind (%v)", res.Profile, err)
	}
}

// TestCheckFailures breaks the fixture one way at a time; each must fail
// the check with a message naming the fault, and leave no browser behind.
func TestCheckFailures(t *testing.T) {
	browser := Require(t)
	page, err := os.ReadFile("testdata/fixture.html")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, variant, html, want string
	}{
		{name: "remote image", variant: `document.body.appendChild(Object.assign(new Image(), {src: "https://cdn.example.com/x.png"}));`,
			want: "the page requested https://cdn.example.com/x.png"},
		{name: "remote script", html: `<script src="http://example.org/chart.js"></script>`,
			want: "the page requested http://example.org/chart.js"},
		{name: "fetch", variant: `fetch("https://api.example.com/data").catch(() => {});`,
			want: "the page requested https://api.example.com/data"},
		{name: "console error", variant: `console.error("chart exploded", 42);`,
			want: "console.error: chart exploded 42"},
		{name: "exception", variant: `setTimeout(() => { throw new Error("late failure"); }, 0);`,
			want: "late failure"},
		{name: "dataset error", variant: `drawLines = () => { throw new Error("no data"); };`,
			want: "the page set body.dataset.error: Error: no data"},
		{name: "undeclared chart", variant: `window.gobenchCharts.pop();`,
			want: "window.gobenchCharts lists 1 charts, the page has 2 figures"},
		{name: "series disagree", variant: `window.gobenchCharts[0].series = 3;`,
			want: "chart-ttft: window.gobenchCharts says series/points [3 40]"},
		{name: "nothing drawn", variant: `drawBars = () => {};`,
			want: "chart-tokens: drew nothing"},
		{name: "no tooltip", variant: `tip = () => {};`,
			want: "chart-ttft: hover: no visible .gb-tooltip"},
		{name: "never ready", variant: `requestAnimationFrame = () => 0;`,
			want: "waiting for body.dataset.ready"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			html := strings.Replace(string(page), "/*VARIANT*/", tt.variant, 1)
			html = strings.Replace(html, "</head>", tt.html+"</head>", 1)
			path := filepath.Join(t.TempDir(), "page.html")
			if err := os.WriteFile(path, []byte(html), 0o644); err != nil {
				t.Fatal(err)
			}
			o := Options{}
			if tt.name == "never ready" {
				// The page cannot get ready, so this wait always runs out:
				// 3 s of polling shows it, and the browser's start, slow
				// on a loaded machine, is bounded by Timeout alone.
				o.ReadyTimeout = 3 * time.Second
			}
			res, err := Check(context.Background(), browser, path, o)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Check error = %v, want one containing %q", err, tt.want)
			}
			if res != nil {
				if pids := ProfileUsers(res.Profile); len(pids) != 0 {
					t.Errorf("browser processes outlived Check: %v", pids)
				}
			}
		})
	}
}

func TestCheckMissingFile(t *testing.T) {
	_, err := Check(context.Background(), "/nonexistent/chromium", filepath.Join(t.TempDir(), "none.html"), Options{})
	if err == nil || !strings.Contains(err.Error(), "none.html") {
		t.Errorf("Check of a missing file: %v", err)
	}
}

func TestFind(t *testing.T) {
	dir := t.TempDir()
	notExec := filepath.Join(dir, "chromium")
	if err := os.WriteFile(notExec, []byte("#!/bin/sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv(EnvBrowser, notExec)
	if _, err := Find(); err == nil || !strings.Contains(err.Error(), "not an executable file") {
		t.Errorf("Find with %s naming a plain file: %v", EnvBrowser, err)
	}
	if err := os.Chmod(notExec, 0o755); err != nil {
		t.Fatal(err)
	}
	if got, err := Find(); err != nil || got != notExec {
		t.Errorf("Find = %q, %v; want %q", got, err, notExec)
	}
}
