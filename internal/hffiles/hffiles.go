// Package hffiles finds the data files of a local Hugging Face dataset (a
// file, or a directory in the Hub's layout) that hold a subset's split, as
// the datasets library's file patterns pick them.
package hffiles

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// splitKeywords are the datasets library's names for its three default
// splits in file and directory names (datasets/data_files.py
// SPLIT_KEYWORDS): a file named dev-00000.parquet belongs to
// "validation".
var splitKeywords = [][]string{
	{"train", "training"},
	{"validation", "valid", "dev", "val"},
	{"test", "testing", "eval", "evaluation"},
}

// keywordsOf returns the names that select split: its synonyms for a
// default split, else the split's own name.
func keywordsOf(split string) []string {
	for _, k := range splitKeywords {
		if slices.Contains(k, split) {
			return k
		}
	}
	return []string{split}
}

// isSep is the datasets library's NON_WORDS_CHARS ("-._ 0-9"), which
// delimit a split keyword in a name.
func isSep(c byte) bool { return strings.IndexByte("-._ 0123456789", c) >= 0 }

// nameHas reports whether name holds keyword as the datasets library's
// patterns find it: at the start followed by a separator ("{kw}[sep]*") or
// between separators ("*[sep]{kw}[sep]*"); a directory also by its whole
// name ("{kw}/**") or at its end after a separator ("*[sep]{kw}/**").
func nameHas(name, keyword string, dir bool) bool {
	for i := 0; i+len(keyword) <= len(name); i++ {
		if name[i:i+len(keyword)] != keyword {
			continue
		}
		end := i + len(keyword)
		before := i == 0 || isSep(name[i-1])
		after := end < len(name) && isSep(name[end])
		if dir && end == len(name) {
			after = true
		}
		if before && after {
			return true
		}
	}
	return false
}

// inSplit reports whether the relative path rel belongs to a split named
// by one of keywords: by its file name, or (byDir) by a directory name.
func inSplit(rel string, keywords []string, byDir bool) bool {
	parts := strings.Split(rel, "/")
	for _, kw := range keywords {
		if !byDir && nameHas(parts[len(parts)-1], kw, false) {
			return true
		}
		if byDir {
			for _, d := range parts[:len(parts)-1] {
				if nameHas(d, kw, true) {
					return true
				}
			}
		}
	}
	return false
}

// Find lists the data files of a local dataset (a file, or a
// directory in the Hub's layout) for a subset and a split, sorted. isData
// reports whether a file extension (lower case, with its dot) is a data
// file the caller reads: the caller's readers, not this package, know the
// formats.
func Find(root, subset, split string, isData func(ext string) bool) ([]string, error) {
	st, err := os.Stat(root)
	if err != nil {
		return nil, fmt.Errorf("--dataset-path: %w", err)
	}
	if !st.IsDir() {
		return []string{root}, nil
	}
	var rels []string
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		switch {
		case p == root:
		case strings.HasPrefix(d.Name(), ".") && d.IsDir():
			return filepath.SkipDir
		case !d.IsDir():
			rels = append(rels, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("--dataset-path: %w", err)
	}
	picked, err := Select(rels, subset, split, isData)
	if err != nil {
		return nil, fmt.Errorf("--dataset-path %s: %w", root, err)
	}
	out := make([]string, len(picked))
	for i, rel := range picked {
		out[i] = filepath.Join(root, filepath.FromSlash(rel))
	}
	return out, nil
}

// Select picks, among a repository's files (paths relative to its
// root, with "/"), the data files of a subset and a split, sorted, as
// load_dataset resolves a repository without a loading script:
// --hf-subset is a directory; the split is chosen by the keywords in the
// file names, else in the directory names, else every file is in the
// split (load_dataset's "train", or the one split a README's configs
// name). isData is as for Find; the Hub's file list is picked this way
// before anything is downloaded.
func Select(rels []string, subset, split string, isData func(ext string) bool) ([]string, error) {
	var data []string
	for _, r := range rels {
		name := r[strings.LastIndexByte(r, '/')+1:]
		ok := isData(strings.ToLower(path.Ext(name)))
		if (ok || strings.HasSuffix(name, ".arrow")) && !strings.HasPrefix(name, ".") && (subset == "" || strings.HasPrefix(r, subset+"/")) {
			data = append(data, strings.TrimPrefix(r, subset+"/"))
		}
	}
	if len(data) == 0 && subset != "" {
		return nil, fmt.Errorf("--hf-subset %s: no directory %s with data files", subset, subset)
	}
	if len(data) == 0 {
		return nil, errors.New("no data files (.parquet, .jsonl, .json, .csv)")
	}
	picked, err := pickSplit(data, split)
	if err != nil {
		return nil, err
	}
	slices.Sort(picked)
	if subset != "" {
		for i := range picked {
			picked[i] = subset + "/" + picked[i]
		}
	}
	return picked, nil
}

// pickSplit selects the files of split among rels.
func pickSplit(rels []string, split string) ([]string, error) {
	known := append(slices.Concat(splitKeywords...), split)
	for _, byDir := range []bool{false, true} {
		if !slices.ContainsFunc(rels, func(r string) bool { return inSplit(r, known, byDir) }) {
			continue
		}
		var out []string
		for _, r := range rels {
			if inSplit(r, keywordsOf(split), byDir) {
				out = append(out, r)
			}
		}
		if len(out) == 0 {
			return nil, fmt.Errorf("Unknown split %q: no data file is named for it (--hf-split)", split)
		}
		return out, nil
	}
	// No file is named for a split: load_dataset makes them all "train",
	// unless the README's configs name the split (MMStar's "val" is one
	// file), which gobench does not read; so every split is every file.
	return rels, nil
}
