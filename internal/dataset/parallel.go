package dataset

import (
	"sync"
	"sync/atomic"
)

// fixed is one prompt after gen_prompt_decode_to_target_len: its text, its
// token ids and the mismatch left when the retry budget ran out.
type fixed struct {
	prompt   string
	ids      []int
	mismatch int
}

// turns lets sample i draw from the generator only once every sample
// before it is finished, so that the draws come in vLLM's serial order
// however the samples are spread over goroutines.
type turns struct {
	mu   sync.Mutex
	cond *sync.Cond
	// next is the first unfinished sample: every sample below it is done.
	next int
	done []bool
}

func newTurns(n int) *turns {
	t := &turns{done: make([]bool, n)}
	t.cond = sync.NewCond(&t.mu)
	return t
}

// wait blocks until every sample before i is finished.
func (t *turns) wait(i int) {
	t.mu.Lock()
	for t.next < i {
		t.cond.Wait()
	}
	t.mu.Unlock()
}

// finish marks sample i done and wakes the samples waiting for their turn.
func (t *turns) finish(i int) {
	t.mu.Lock()
	t.done[i] = true
	for t.next < len(t.done) && t.done[t.next] {
		t.next++
	}
	t.mu.Unlock()
	t.cond.Broadcast()
}

// toTargetLens runs toTargetLen on the sequence and target of every
// sample i in [0, n) (seq(i)) on up to workers goroutines, and hands each
// result to done, which may be called on any of them; the results equal a
// serial loop's.
//
// The decode and re-encode of a sample, and its truncations, depend on
// nothing the generator draws for other samples, so they run in parallel.
// Only padding draws from the generator (vllm/benchmarks/datasets/
// datasets.py@11dfa3169 gen_prompt_decode_to_target_len); a sample that
// pads first waits until every sample before it is finished, so the
// draws come in the serial order. Workers take samples in ascending order,
// so the lowest unfinished sample never waits and the pool cannot
// deadlock; they go from one sample to the next without a barrier.
func (f *fixer) toTargetLens(n, workers int, seq func(i int) ([]int, int), done func(i int, r fixed)) {
	workers = max(1, min(workers, n))
	if workers == 1 {
		for i := range n {
			done(i, f.one(seq(i)))
		}
		return
	}
	t := newTurns(n)
	forEach(n, workers, func(i int) {
		own := &fixer{tok: f.tok, pad: func(k int) []int64 {
			t.wait(i)
			return f.pad(k)
		}}
		done(i, own.one(seq(i)))
		t.finish(i)
	})
}

// one fixes a single sequence.
func (f *fixer) one(seq []int, target int) fixed {
	prompt, ids, mismatch := f.toTargetLen(seq, target, nil)
	return fixed{prompt, ids, mismatch}
}

// genWindow is how many samples the loaders other than random prepare
// ahead on all cores before taking them in order: enough to keep every
// core busy, few enough that the work wasted past the last sample taken
// (or past a speculation that failed) stays small.
const genWindow = 256

// forEach calls f(j) for every j in [0, n) on up to workers goroutines and
// returns when all are done. f must write only its own j's results. The
// goroutines take the j in ascending order (toTargetLens relies on it).
func forEach(n, workers int, f func(j int)) {
	workers = max(1, min(workers, n))
	if workers == 1 {
		for j := range n {
			f(j)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				j := int(next.Add(1) - 1)
				if j >= n {
					return
				}
				f(j)
			}
		})
	}
	wg.Wait()
}
