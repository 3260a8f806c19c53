package dataset

import (
	"fmt"
	"io"

	"github.com/gobench/gobench/internal/numpyrand"
)

// shuffleBufferSize is IterableDataset.shuffle's default buffer_size.
const shuffleBufferSize = 1000

// hfOrder yields the rows of files in the order vLLM's
// HuggingFaceDataset.load_data leaves them
// (vllm/benchmarks/datasets/datasets.py@003cf0297): the files' order with
// --disable-shuffle; else Dataset.shuffle(seed) with --no-stream (the
// whole dataset permuted); else IterableDataset.shuffle(seed), the
// streaming shuffle (huggingface/datasets iterable_dataset.py@b7cb10b0
// BufferShuffledExamplesIterable, with datasets 4's single input shard).
func hfOrder(files []string, opts Options) (rowIter, io.Closer, error) {
	switch {
	case opts.DisableShuffle:
		it, c := concatFiles(files)
		return it, c, nil
	case opts.NoStream:
		return permuted(files, uint64(opts.Seed))
	}
	// shuffle_data_sources: the shards (files) in the order a copy of
	// default_rng(seed) shuffles them (_shuffle_gen_kwargs).
	order := make([]string, len(files))
	idx := make([]int, len(files))
	for i := range idx {
		idx[i] = i
	}
	numpyrand.NewGenerator(uint64(opts.Seed)).Shuffle(len(idx), func(i, j int) { idx[i], idx[j] = idx[j], idx[i] })
	for i, k := range idx {
		order[i] = files[k]
	}
	src, c := concatFiles(order)
	return bufferShuffled(src, numpyrand.NewGenerator(uint64(opts.Seed))), c, nil
}

// permuted reads every row and returns them in the order of
// default_rng(seed).permutation(len) (Dataset.shuffle then select).
func permuted(files []string, seed uint64) (rowIter, io.Closer, error) {
	src, c := concatFiles(files)
	defer c.Close()
	var rows []hfRow
	for {
		row, ok, err := src()
		if err != nil {
			return nil, nil, err
		}
		if !ok {
			break
		}
		if len(rows) == MaxSamples {
			return nil, nil, fmt.Errorf("--no-stream: the dataset has more than %d rows", MaxSamples)
		}
		rows = append(rows, row)
	}
	perm := make([]int, len(rows))
	for i := range perm {
		perm[i] = i
	}
	numpyrand.NewGenerator(seed).Shuffle(len(perm), func(i, j int) { perm[i], perm[j] = perm[j], perm[i] })
	i := 0
	return func() (hfRow, bool, error) {
		if i == len(perm) {
			return hfRow{}, false, nil
		}
		i++
		return rows[perm[i-1]], true, nil
	}, io.NopCloser(nil), nil
}

// bufferShuffled is BufferShuffledExamplesIterable.__iter__: fill a buffer
// of shuffleBufferSize rows; once full, each new row replaces the one at
// an index drawn from g and that one is yielded; at the end the buffer is
// shuffled with g and yielded. The indices are drawn in batches of 1000
// (rng.integers(0, buffer_size, size=1000)), so the final shuffle starts
// after the whole last batch.
func bufferShuffled(src rowIter, g *numpyrand.Generator) rowIter {
	var buf []hfRow
	draws, done, pos := 0, false, 0
	return func() (hfRow, bool, error) {
		for !done {
			x, ok, err := src()
			if err != nil {
				return hfRow{}, false, err
			}
			if !ok {
				done = true
				for draws%1000 != 0 {
					g.Integers(0, shuffleBufferSize)
					draws++
				}
				g.Shuffle(len(buf), func(i, j int) { buf[i], buf[j] = buf[j], buf[i] })
				break
			}
			if len(buf) < shuffleBufferSize {
				buf = append(buf, x)
				continue
			}
			i := g.Integers(0, shuffleBufferSize)
			draws++
			out := buf[i]
			buf[i] = x
			return out, true, nil
		}
		if pos == len(buf) {
			return hfRow{}, false, nil
		}
		pos++
		return buf[pos-1], true, nil
	}
}
