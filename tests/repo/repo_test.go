// Package repo checks the repository's own text: that the Markdown pages and
// the Go comments speak of the product (not of a tracker's issues, of work
// sessions or of reviews), that the README stays a short guide, and that
// every relative link of the README and of docs/ leads to a file (and a
// heading) that exists.
package repo

import (
	"bufio"
	"bytes"
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"unicode"
)

// maxReadmeLines bounds README.md: a user's guide read in ten minutes; the
// reference lives in docs/.
const maxReadmeLines = 400

// trackerWords are the phrases that speak of the work rather than of the
// product: an issue or an item of a tracker by its number, a mend, a
// review, a work session.
var trackerWords = []*regexp.Regexp{
	regexp.MustCompile(`(?i)\bissues? ?#?\d+`),
	regexp.MustCompile(`(?i)\b(the|this|that) issue\b|\bissue(:|'s\b)`),
	regexp.MustCompile(`(?i)\bitem \d+ of\b`),
	regexp.MustCompile(`(?i)\bmend(s|ed|ing)?\b`),
	regexp.MustCompile(`(?i)\breview(s|ed|er|ers|ing)?\b`),
	// A period of work named by its place in a series or by its date. The
	// word alone, with "a" or "the", is left to the product's own uses (a
	// sweep's server, a user's conversation).
	regexp.MustCompile(`(?i)\b(this|that|previous|next|last|first|second|third|fourth|fifth|sixth|day'?s?|today'?s?|yesterday'?s?) (work )?sessions?\b`),
	regexp.MustCompile(`(?i)\b(in|during|from|since|after|before|of) (a|the|one|each|that|this) (work )?session\b`),
	regexp.MustCompile(`(?i)\bsessions? (of|on) \d{4}-\d{2}-\d{2}\b`),
	regexp.MustCompile(`(?i)\b(work|review|coding|pairing) sessions?\b`),
}

// allowed are the legitimate uses a tracker word can appear in; a match
// that lies inside one of them is not reported.
var allowed = []*regexp.Regexp{
	// Upstream projects' trackers, by URL: github.com/vllm-project/vllm/issues/6337, go.dev/issue/75804.
	regexp.MustCompile(`(?i)[a-z0-9.-]+\.[a-z]{2,}/[^\s)]*\bissues?/\d+`),
	// A chat or HTTP session: the X-Session-ID header, a user's session, aiohttp's ClientSession.
	regexp.MustCompile(`(?i)x-session-id`),
	regexp.MustCompile(`(?i)\b(chat|user'?s?|http|client|aiohttp'?s?|tcp|tls|sticky|router'?s?) sessions?\b`),
	regexp.MustCompile(`(?i)\b(a|the|one|each|its|that) sessions? (id|header|key|cookie|affinity)\b`),
	// A process session (setsid): start_new_session, "starts cmd in a new session".
	regexp.MustCompile(`(?i)\bnew session\b`),
	regexp.MustCompile(`(?i)start_new_session`),
}

// root is the repository's root: the nearest directory above the test's
// working directory that holds go.mod and README.md.
func root(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if isFile(filepath.Join(dir, "go.mod")) && isFile(filepath.Join(dir, "README.md")) {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod with a README.md above the working directory")
		}
		dir = parent
	}
}

func isFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}

// skippedDir reports directories whose files are data, build output or not
// the repository's own: test data, hidden directories, bin/, vendored code.
func skippedDir(rel string) bool {
	for _, part := range strings.Split(filepath.ToSlash(rel), "/") {
		switch {
		case part == "testdata", part == "vendor", part == "node_modules", part == "bin":
			return true
		case strings.HasPrefix(part, ".") && part != "." && part != "..":
			return true
		}
	}
	return false
}

// files lists the repository's files ending in ext, as slash-separated paths
// relative to the root: the tracked ones and the new ones git does not
// ignore when git can say, else every file on disk; less the skipped
// directories.
func files(t *testing.T, rootDir, ext string) []string {
	t.Helper()
	var out []string
	cmd := exec.Command("git", "ls-files", "-z", "--cached", "--others", "--exclude-standard", "--", "*"+ext)
	cmd.Dir = rootDir
	if b, err := cmd.Output(); err == nil {
		for _, p := range strings.Split(string(b), "\x00") {
			if p == "" || skippedDir(path.Dir(p)) || !isFile(filepath.Join(rootDir, p)) {
				continue
			}
			out = append(out, p)
		}
		sort.Strings(out)
		return out
	}
	err := filepath.WalkDir(rootDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(rootDir, p)
		if d.IsDir() {
			if rel != "." && skippedDir(rel) {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(p, ext) {
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(out)
	return out
}

// trackerHits returns the tracker words of one line that no allowed use
// covers.
func trackerHits(line string) []string {
	var spans [][]int
	for _, re := range allowed {
		spans = append(spans, re.FindAllStringIndex(line, -1)...)
	}
	var hits []string
	for _, re := range trackerWords {
	match:
		for _, m := range re.FindAllStringIndex(line, -1) {
			for _, s := range spans {
				if m[0] >= s[0] && m[1] <= s[1] || m[0] < s[1] && s[0] < m[1] {
					continue match
				}
			}
			hits = append(hits, line[m[0]:m[1]])
		}
	}
	return hits
}

func TestMarkdownSpeaksOfTheProduct(t *testing.T) {
	rootDir := root(t)
	for _, rel := range files(t, rootDir, ".md") {
		b, err := os.ReadFile(filepath.Join(rootDir, rel))
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(bytes.NewReader(b))
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for n := 1; sc.Scan(); n++ {
			for _, h := range trackerHits(sc.Text()) {
				t.Errorf("%s:%d: %q speaks of the work, not the product: %s", rel, n, h, strings.TrimSpace(sc.Text()))
			}
		}
	}
}

func TestGoCommentsSpeakOfTheProduct(t *testing.T) {
	rootDir := root(t)
	fset := token.NewFileSet()
	for _, rel := range files(t, rootDir, ".go") {
		if path.Dir(rel) == "tests/repo" {
			continue // this package names the phrases it looks for
		}
		f, err := parser.ParseFile(fset, filepath.Join(rootDir, rel), nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			t.Errorf("%s: %v", rel, err)
			continue
		}
		for _, group := range f.Comments {
			for _, c := range group.List {
				start := fset.Position(c.Slash).Line
				for i, line := range strings.Split(c.Text, "\n") {
					for _, h := range trackerHits(line) {
						t.Errorf("%s:%d: %q speaks of the work, not the product: %s", rel, start+i, h, strings.TrimSpace(line))
					}
				}
			}
		}
	}
}

func TestReadmeIsShort(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(root(t), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(b, []byte("\n")); n > maxReadmeLines {
		t.Errorf("README.md has %d lines, more than %d: move reference material to a page of docs/ and link it", n, maxReadmeLines)
	}
}

var (
	fence      = regexp.MustCompile("^\\s*(```|~~~)")
	codeSpan   = regexp.MustCompile("`+[^`]*`+")
	link       = regexp.MustCompile(`!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)`)
	heading    = regexp.MustCompile(`^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$`)
	htmlAnchor = regexp.MustCompile(`<a\s+(?:name|id)="([^"]+)"`)
)

// markdownLines returns a page's lines outside fenced code blocks, with
// code spans blanked, numbered from 1.
func markdownLines(b []byte) map[int]string {
	out := map[int]string{}
	inFence := false
	for i, line := range strings.Split(string(b), "\n") {
		if fence.MatchString(line) {
			inFence = !inFence
			continue
		}
		if !inFence {
			out[i+1] = line
		}
	}
	return out
}

// anchors returns the fragment identifiers of a page's headings as GitHub
// makes them (lower case, punctuation dropped, spaces to hyphens, a repeated
// one numbered), and its explicit HTML anchors.
func anchors(b []byte) map[string]bool {
	seen := map[string]int{}
	out := map[string]bool{}
	lines := markdownLines(b)
	nums := make([]int, 0, len(lines))
	for n := range lines {
		nums = append(nums, n)
	}
	sort.Ints(nums)
	for _, n := range nums {
		line := lines[n]
		for _, m := range htmlAnchor.FindAllStringSubmatch(line, -1) {
			out[m[1]] = true
		}
		m := heading.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		var sb strings.Builder
		for _, r := range strings.ToLower(m[1]) {
			switch {
			case unicode.IsLetter(r), unicode.IsDigit(r), r == '-', r == '_':
				sb.WriteRune(r)
			case r == ' ':
				sb.WriteByte('-')
			}
		}
		slug := sb.String()
		if k := seen[slug]; k > 0 {
			out[fmt.Sprintf("%s-%d", slug, k)] = true
		} else {
			out[slug] = true
		}
		seen[slug]++
	}
	return out
}

func TestRelativeLinksResolve(t *testing.T) {
	rootDir := root(t)
	pages := []string{"README.md"}
	docs, _ := filepath.Glob(filepath.Join(rootDir, "docs", "*.md"))
	for _, p := range docs {
		rel, _ := filepath.Rel(rootDir, p)
		pages = append(pages, filepath.ToSlash(rel))
	}
	anchorsOf := map[string]map[string]bool{}
	anchorsFor := func(rel string) map[string]bool {
		if a, ok := anchorsOf[rel]; ok {
			return a
		}
		b, err := os.ReadFile(filepath.Join(rootDir, filepath.FromSlash(rel)))
		if err != nil {
			return nil
		}
		anchorsOf[rel] = anchors(b)
		return anchorsOf[rel]
	}
	for _, page := range pages {
		b, err := os.ReadFile(filepath.Join(rootDir, filepath.FromSlash(page)))
		if err != nil {
			t.Fatal(err)
		}
		lines := markdownLines(b)
		nums := make([]int, 0, len(lines))
		for n := range lines {
			nums = append(nums, n)
		}
		sort.Ints(nums)
		for _, n := range nums {
			line := codeSpan.ReplaceAllString(lines[n], "")
			for _, m := range link.FindAllStringSubmatch(line, -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				file, frag, _ := strings.Cut(target, "#")
				dest := page
				if file != "" {
					dest = path.Clean(path.Join(path.Dir(page), file))
					if strings.HasPrefix(dest, "../") {
						t.Errorf("%s:%d: link %q leaves the repository", page, n, target)
						continue
					}
					if _, err := os.Stat(filepath.Join(rootDir, filepath.FromSlash(dest))); err != nil {
						t.Errorf("%s:%d: link %q: no file %s", page, n, target, dest)
						continue
					}
				}
				if frag == "" || !strings.HasSuffix(dest, ".md") {
					continue
				}
				if a := anchorsFor(dest); !a[frag] {
					t.Errorf("%s:%d: link %q: %s has no heading #%s", page, n, target, dest, frag)
				}
			}
		}
	}
}

// makeTarget is a Makefile rule that `make help` lists: its name, then a
// "## " description.
var makeTarget = regexp.MustCompile(`(?m)^([a-z][a-z0-9-]*):.*## `)

// TestReadmeNamesEveryMakeTarget: every target `make help` lists appears in
// the README as `make TARGET`, so that a new target is explained where a
// new engineer looks.
func TestReadmeNamesEveryMakeTarget(t *testing.T) {
	rootDir := root(t)
	mk, err := os.ReadFile(filepath.Join(rootDir, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile(filepath.Join(rootDir, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range makeTarget.FindAllStringSubmatch(string(mk), -1) {
		if !regexp.MustCompile(`\bmake ` + regexp.QuoteMeta(m[1]) + `\b([^-]|$)`).Match(readme) {
			t.Errorf("README.md does not name `make %s`, which `make help` lists", m[1])
		}
	}
}
