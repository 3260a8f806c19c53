package tokenizer

import (
	"fmt"
	"runtime"
	"sync"
	"unicode/utf8"
)

// Loading Qwen3's tokenizer.json (11 MB) is mostly two independent scans,
// reading model.vocab and reading model.merges, which run on separate
// goroutines so that a run's start-up waits for the longer of them rather
// than their sum.

// buildFromJSON is assemble of a file that must be UTF-8, as Hugging Face
// reads it into a string. The scan validates the file as JSON on the way;
// invalid JSON is reported as such whatever the parse made of it, with
// encoding/json's error for the whole file (its byte offsets are the
// file's).
func buildFromJSON(data []byte) (*hfTokenizer, *vocabulary, error) {
	if !utf8.Valid(data) {
		if err := checkJSON(data); err != nil {
			return nil, nil, err
		}
		return nil, nil, notUTF8(data)
	}
	t, vocab, err := assemble(data)
	if err != nil {
		if verr := checkJSON(data); verr != nil {
			return nil, nil, verr
		}
		return nil, nil, err
	}
	return t, vocab, nil
}

// notUTF8 is the error of a file whose bytes from off are not UTF-8.
func notUTF8(data []byte) error {
	off := 0
	for off < len(data) {
		r, n := utf8.DecodeRune(data[off:])
		if r == utf8.RuneError && n == 1 {
			break
		}
		off += n
	}
	return fmt.Errorf("the file is not UTF-8 (at byte %d)", off)
}

// inBackground runs f on its own goroutine (a background value) and
// returns a function that waits for its result; a panic in f becomes its
// error, so that a parser's bug is not a crash.
func inBackground[T any](f func() (T, error)) func() (T, error) {
	type result struct {
		v   T
		err error
	}
	b := buildInBackground(func() (res result) {
		defer func() {
			if r := recover(); r != nil {
				if e, ok := r.(error); ok {
					res.err = fmt.Errorf("tokenizer: %w", e)
				} else {
					res.err = fmt.Errorf("tokenizer: %v", r)
				}
			}
		}()
		res.v, res.err = f()
		return res
	})
	return func() (T, error) {
		r := b.get()
		return r.v, r.err
	}
}

// mergeValues resolves every merge to its pair table key (pairKey of its
// parts' ids) and value (rank<<32 | merged id), checking as HF's
// BpeBuilder::build does that its two parts and their concatenation (the
// right part without the continuing-subword prefix) are in the
// vocabulary. The vocabulary lookups are most of the work; they run in
// chunks on all cores and the first bad merge is reported.
//
// The file order saves the lookup of most merged tokens: HF's BPE trainer
// numbers each new token after the last, and writes model.vocab in id
// order, so the token that merge i makes is usually the one with the id
// after the previous merge's. That token is tried first, by comparing its
// text with the merged text (vocabulary.atID, which declines when a token
// occurs twice), so a match is the token a lookup would have given.
func mergeValues(vocab *vocabulary, merges [][2]string, prefix string) (keys, vals []uint64, err error) {
	keys, vals = make([]uint64, len(merges)), make([]uint64, len(merges))
	chunks := min(runtime.GOMAXPROCS(0), max(1, len(merges)/8192))
	size := (len(merges) + chunks - 1) / max(1, chunks)
	errs := make([]error, chunks)
	var wg sync.WaitGroup
	for c := range chunks {
		wg.Go(func() {
			lo, hi := c*size, min((c+1)*size, len(merges))
			errs[c] = resolveMerges(vocab, merges[lo:hi], lo, prefix, keys[lo:hi], vals[lo:hi])
		})
	}
	wg.Wait()
	if err := firstError(errs); err != nil {
		return nil, nil, err
	}
	return keys, vals, nil
}

// resolveMerges is mergeValues for merges[from:...] (given as merges),
// writing keys and vals.
func resolveMerges(vocab *vocabulary, merges [][2]string, from int, prefix string, keys, vals []uint64) error {
	var buf []byte
	last := -2 // the previous merged token's id
	for j, mg := range merges {
		i := from + j
		a, ok := vocab.get(mg[0])
		if !ok {
			return fieldError(fmt.Sprintf("model.merges[%d]", i), fmt.Errorf("token %q is not in model.vocab", mg[0]))
		}
		b, ok := vocab.get(mg[1])
		if !ok {
			return fieldError(fmt.Sprintf("model.merges[%d]", i), fmt.Errorf("token %q is not in model.vocab", mg[1]))
		}
		right := mg[1]
		if len(prefix) <= len(right) {
			right = right[len(prefix):]
		}
		buf = append(append(buf[:0], mg[0]...), right...)
		id, ok := last+1, false
		if tok, at := vocab.atID(id); at && tok == string(buf) {
			ok = true
		} else {
			id, ok = vocab.get(string(buf))
		}
		last = id
		if !ok {
			return fieldError(fmt.Sprintf("model.merges[%d]", i), fmt.Errorf("merged token %q is not in model.vocab", buf))
		}
		keys[j], vals[j] = pairKey(int32(a), int32(b)), uint64(i)<<32|uint64(uint32(id))
	}
	return nil
}

// firstError is the first non-nil error of errs, or nil.
func firstError(errs []error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
