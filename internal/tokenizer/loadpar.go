package tokenizer

import (
	"fmt"
	"runtime"
	"sync"
)

// Loading Qwen3's tokenizer.json (11 MB) is mostly three independent scans:
// validating the JSON, reading model.vocab and reading model.merges. They
// run on separate goroutines, so that a run's start-up waits for the
// longest of them rather than their sum.

// buildFromJSON is assemble with the validation of the whole file run
// beside it. Invalid JSON is reported as such whatever the parse made of
// it, as when the validation ran first.
func buildFromJSON(data []byte) (t *hfTokenizer, vocab map[string]int, err error) {
	valid := inBackground(func() (struct{}, error) { return struct{}{}, checkJSON(data) })
	defer func() {
		r := recover()
		if _, verr := valid(); verr != nil {
			t, vocab, err = nil, nil, verr
			return
		}
		if r != nil {
			panic(fmt.Sprintf("tokenizer: parsing valid JSON: %v", r))
		}
	}()
	return assemble(data)
}

// inBackground runs f on its own goroutine and returns a function that
// waits for its result (the result is kept: later calls return it again).
func inBackground[T any](f func() (T, error)) func() (T, error) {
	type result struct {
		v   T
		err error
	}
	ch := make(chan result, 1)
	go func() {
		var res result
		defer func() {
			// A panic (a parser meeting JSON the validation refuses)
			// becomes an error, so that it is not a crash.
			if r := recover(); r != nil {
				res.err = fmt.Errorf("tokenizer: %v", r)
			}
			ch <- res
		}()
		res.v, res.err = f()
	}()
	var r *result
	return func() (T, error) {
		if r == nil {
			got := <-ch
			r = &got
		}
		return r.v, r.err
	}
}

// mergeValues resolves every merge to its pair table key (pairKey of its
// parts' ids) and value (rank<<32 | merged id), checking as HF's BpeBuilder::build does that its two parts and their
// concatenation (the right part without the continuing-subword prefix)
// are in the vocabulary. The vocabulary lookups are most of the work; they
// run in chunks on all cores and the first bad merge is reported.
func mergeValues(vocab map[string]int, merges [][2]string, prefix string) (keys, vals []uint64, err error) {
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
func resolveMerges(vocab map[string]int, merges [][2]string, from int, prefix string, keys, vals []uint64) error {
	var buf []byte
	for j, mg := range merges {
		i := from + j
		a, ok := vocab[mg[0]]
		if !ok {
			return fieldError(fmt.Sprintf("model.merges[%d]", i), fmt.Errorf("token %q is not in model.vocab", mg[0]))
		}
		b, ok := vocab[mg[1]]
		if !ok {
			return fieldError(fmt.Sprintf("model.merges[%d]", i), fmt.Errorf("token %q is not in model.vocab", mg[1]))
		}
		right := mg[1]
		if len(prefix) <= len(right) {
			right = right[len(prefix):]
		}
		buf = append(append(buf[:0], mg[0]...), right...)
		id, ok := vocab[string(buf)]
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
