// Command screenshot opens a gobench HTML report in the headless Chromium
// the browser tests use (internal/browsertest: $GOBENCH_CHROMIUM, the pinned
// build of `make testdata`, or chromium on PATH), checks it as the tests do,
// and writes a PNG of the top of the page: README's picture, made by
// `make screenshot`, never drawn by hand.
//
//	go run ./tools/screenshot -o docs/report.png report.html
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/gobench/gobench/internal/browsertest"
)

func main() {
	out := flag.String("o", "docs/report.png", "PNG file to write")
	width := flag.Int("width", 1280, "window width in CSS pixels")
	height := flag.Int("height", 1000, "window height in CSS pixels")
	at := flag.String("at", "", "CSS selector of the element the picture starts at (default: the top of the page)")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: screenshot [-o FILE.png] [-width W] [-height H] [-at SELECTOR] REPORT.html")
		os.Exit(2)
	}
	if err := run(flag.Arg(0), *out, *width, *height, *at); err != nil {
		fmt.Fprintf(os.Stderr, "screenshot: %v\n", err)
		os.Exit(1)
	}
}

func run(report, out string, width, height int, at string) error {
	browser, err := browsertest.Find()
	if err != nil {
		return err
	}
	res, err := browsertest.Check(context.Background(), browser, report, browsertest.Options{
		Timeout: 2 * time.Minute, Width: width, Height: height, Screenshot: true, ScrollTo: at,
	})
	if err != nil {
		return err
	}
	if err := os.WriteFile(out, res.Screenshot, 0o644); err != nil {
		return fmt.Errorf("write %s: %w", out, err)
	}
	fmt.Printf("screenshot: %s (%d charts, ready in %v) -> %s\n", report, len(res.Charts), res.LoadTime.Round(time.Millisecond), out)
	return nil
}
