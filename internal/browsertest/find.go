// Package browsertest opens a gobench HTML report in a real headless
// Chromium, driven from Go over the DevTools protocol (chromedp), and checks
// what a reader would see: the page loads from a file URL without asking any
// host for anything, logs no error, draws every chart with the series and
// points it announces, and shows a value when the mouse hovers a chart. It is
// test support only: tests of the report import it, the gobench binary never
// does.
//
// The page and the tests meet on a contract (internal/htmlreport writes it):
// every chart is a <figure class="gb-chart" id="chart-NAME" data-series="N"
// data-points="M"> with a <figcaption>; the page sets window.gobenchCharts to
// [{id, series, points}] and, once every chart has drawn,
// document.body.dataset.ready = "true" (or document.body.dataset.error to a
// message when one failed); hovering a chart shows its value in an element
// .gb-tooltip inside that figure.
package browsertest

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// EnvBrowser names the environment variable that points at the Chromium (or
// Chrome) binary to test with; it wins over every other place.
const EnvBrowser = "GOBENCH_CHROMIUM"

// PinnedDir is where `make testdata` (tools/fetchtestdata) unpacks the pinned
// Chromium build, relative to the module root: the binary "chromium", the
// shared libraries it needs beside the C library in "lib", and its fonts in
// "fonts".
const PinnedDir = "internal/browsertest/testdata/chromium"

// onPath are the names a developer's own browser goes by, looked up on PATH
// after the pinned build (Debian's apt package is "chromium").
var onPath = []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome-headless-shell", "headless_shell"}

// ErrNoBrowser is returned by Find when no Chromium is found anywhere.
var ErrNoBrowser = errors.New("no Chromium: run `make testdata` (pinned build), install one (apt-get install chromium) or set " + EnvBrowser)

// Find returns the path of the browser to test with: $GOBENCH_CHROMIUM when
// set (an error when it names no executable, so a typo does not silently
// test another browser), else the pinned build `make testdata` fetched, else
// the first of chromium, chromium-browser, google-chrome and the headless
// shells on PATH.
func Find() (string, error) {
	if p := os.Getenv(EnvBrowser); p != "" {
		if !executable(p) {
			return "", fmt.Errorf("%s=%s: not an executable file", EnvBrowser, p)
		}
		return p, nil
	}
	if root, err := moduleRoot(); err == nil {
		if p := filepath.Join(root, PinnedDir, "chromium"); executable(p) {
			return p, nil
		}
	}
	for _, name := range onPath {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", ErrNoBrowser
}

// Require returns the browser for a test, as Find does. When there is none
// it skips the test, unless GOBENCH_REQUIRE_TESTDATA is set (as `make test`
// sets it): then the test fails, so a CI machine that lost its browser cannot
// pass by skipping.
func Require(tb testing.TB) string {
	tb.Helper()
	p, err := Find()
	if err == nil {
		return p
	}
	if os.Getenv("GOBENCH_REQUIRE_TESTDATA") != "" {
		tb.Fatalf("browsertest: %v", err)
	}
	tb.Skipf("browsertest: %v", err)
	return ""
}

// executable reports whether path is a regular file someone may execute.
func executable(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.Mode().IsRegular() && st.Mode().Perm()&0o111 != 0
}

// moduleRoot walks up from the working directory (a test's package folder)
// to the folder holding go.mod.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("module root: %w", err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("module root: no go.mod above the working directory")
		}
		dir = parent
	}
}
