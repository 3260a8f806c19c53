package numpyrand

import (
	"fmt"
	"math"
	"math/bits"
)

// Generator reproduces np.random.default_rng(seed): a PCG64 bit generator
// seeded through SeedSequence, with the Generator class's methods.
//
// A Generator is not safe for concurrent use.
type Generator struct {
	bg *pcg64
}

// NewGenerator returns the generator np.random.default_rng(seed) produces
// for a non-negative integer seed.
func NewGenerator(seed uint64) *Generator {
	return &Generator{bg: newPCG64(seed)}
}

// Random returns rng.random(): a float64 in [0, 1) from the top 53 bits of
// one 64-bit output. It does not touch the buffered 32-bit half.
func (g *Generator) Random() float64 { return g.bg.nextDouble() }

// Integers returns rng.integers(low, high) for the default int64 dtype and
// endpoint=False: a uniform integer in [low, high). Spans that fit in 32
// bits use Lemire's method on 32-bit draws (which share PCG64's buffered
// high half); wider spans use Lemire's method on 64-bit draws.
//
// It panics if low >= high, where NumPy raises ValueError("low >= high").
func (g *Generator) Integers(low, high int64) int64 {
	rng, off := span(low, high, "Integers")
	return int64(off + g.boundedLemire(rng))
}

// IntegersN returns rng.integers(low, high, size=n). For the int64 dtype
// NumPy's scalar and array paths run the same random_bounded_uint64_fill
// loop, and the only 32-bit buffer is the bit generator's own, so this equals
// n consecutive Integers calls, including how an odd count leaves half a
// 64-bit output buffered for the next call. (Sub-32-bit dtypes would differ:
// their array path packs several values into one 32-bit draw; gobench uses
// none of them.)
//
// It panics if low >= high or n < 0.
func (g *Generator) IntegersN(low, high int64, n int) []int64 {
	return fillBounded(low, high, n, "IntegersN", g.boundedLemire)
}

// fillBounded is the array path of NumPy's bounded integers: n draws of
// one element each, in [low, high).
func fillBounded(low, high int64, n int, name string, draw func(rng uint64) uint64) []int64 {
	if n < 0 {
		panic(fmt.Sprintf("numpyrand: %s size must be >= 0, got %d", name, n))
	}
	out := make([]int64, n)
	if n == 0 {
		// NumPy returns an empty array before validating or drawing.
		return out
	}
	rng, off := span(low, high, name)
	for i := range out {
		out[i] = int64(off + draw(rng))
	}
	return out
}

// boundedLemire is one element of random_bounded_uint64_fill with
// use_masked=false: a value in [0, rng].
func (g *Generator) boundedLemire(rng uint64) uint64 {
	switch {
	case rng == 0:
		// A single-value range consumes no randomness.
		return 0
	case rng == math.MaxUint32:
		return uint64(g.bg.next32())
	case rng < math.MaxUint32:
		return uint64(g.lemire32(uint32(rng)))
	case rng == math.MaxUint64:
		return g.bg.next64()
	default:
		return g.lemire64(rng)
	}
}

// lemire32 is buffered_bounded_lemire_uint32: multiply a 32-bit draw by the
// exclusive bound, keep the high word, and reject the biased low words. The
// exact threshold is only computed when the cheap bound rngExcl says a
// rejection is possible; both orders draw the same numbers.
func (g *Generator) lemire32(rng uint32) uint32 {
	rngExcl := rng + 1
	m := uint64(g.bg.next32()) * uint64(rngExcl)
	leftover := uint32(m)
	if leftover < rngExcl {
		threshold := (math.MaxUint32 - rng) % rngExcl
		for leftover < threshold {
			m = uint64(g.bg.next32()) * uint64(rngExcl)
			leftover = uint32(m)
		}
	}
	return uint32(m >> 32)
}

// lemire64 is bounded_lemire_uint64, the 128-bit-product version.
func (g *Generator) lemire64(rng uint64) uint64 {
	rngExcl := rng + 1
	hi, lo := bits.Mul64(g.bg.next64(), rngExcl)
	if lo < rngExcl {
		threshold := (math.MaxUint64 - rng) % rngExcl
		for lo < threshold {
			hi, lo = bits.Mul64(g.bg.next64(), rngExcl)
		}
	}
	return hi
}

// Uint8s returns rng.integers(0, 256, size=n, dtype=np.uint8) as bytes:
// NumPy's random_bounded_uint8_fill for the full byte range, which takes
// each 32-bit draw (PCG64's buffered half included) four bytes at a time,
// low byte first, so n bytes consume ceil(n/4) 32-bit draws. vLLM's
// random-mm draws its synthetic pixels this way
// (vllm/benchmarks/datasets/datasets.py@11dfa3169
// generate_synthetic_image).
func (g *Generator) Uint8s(n int) []byte {
	out := make([]byte, n)
	var buf uint32
	for i := range out {
		if i%4 == 0 {
			buf = g.bg.next32()
		} else {
			buf >>= 8
		}
		out[i] = byte(buf)
	}
	return out
}

// ChoiceP returns rng.choice(len(p), p=p) for a single draw: the index
// whose cumulative probability (p.cumsum(), divided by its last value)
// first exceeds one rng.random() (searchsorted, side="right"). p must be
// non-negative and sum to 1 within sqrt(machine epsilon), as NumPy
// requires; otherwise ChoiceP returns an error with NumPy's message.
func (g *Generator) ChoiceP(p []float64) (int, error) {
	if len(p) == 0 {
		return 0, fmt.Errorf("a cannot be empty unless no samples are taken")
	}
	var sum, comp float64 // kahan_sum
	for _, v := range p {
		if math.IsNaN(v) {
			return 0, fmt.Errorf("probabilities contain NaN")
		}
		if v < 0 {
			return 0, fmt.Errorf("probabilities are not non-negative")
		}
		y := v - comp
		t := sum + y
		comp = (t - sum) - y
		sum = t
	}
	if math.Abs(sum-1) > math.Sqrt(0x1p-52) {
		return 0, fmt.Errorf("probabilities do not sum to 1")
	}
	cdf := make([]float64, len(p))
	acc := 0.0
	for i, v := range p {
		acc += v
		cdf[i] = acc
	}
	last := cdf[len(cdf)-1]
	for i := range cdf {
		cdf[i] /= last
	}
	u := g.Random()
	// searchsorted side="right": the first index whose value is > u.
	for i, c := range cdf {
		if c > u {
			return i, nil
		}
	}
	return len(cdf), nil
}

// Shuffle is rng.shuffle(x) on a sequence of n items (a Python list or a
// 1-D array, as rng.permutation(n) shuffles its arange): Fisher-Yates from
// the end, each j drawn by random_interval(i), which masks 32-bit draws
// (PCG64's buffered halves) while i fits in 32 bits and 64-bit draws above,
// rejecting values past i. The Hugging Face datasets library shuffles with
// it (Dataset.shuffle's permutation, a streaming dataset's shard order and
// the leftover of its shuffle buffer).
func (g *Generator) Shuffle(n int, swap func(i, j int)) {
	for i := n - 1; i > 0; i-- {
		swap(i, int(g.interval(uint64(i))))
	}
}

// interval is NumPy's random_interval(max): a uniform value in [0, max]
// by masked rejection.
func (g *Generator) interval(limit uint64) uint64 {
	if limit == 0 {
		return 0
	}
	mask := genMask(limit)
	if limit <= math.MaxUint32 {
		for {
			if v := uint64(g.bg.next32()) & mask; v <= limit {
				return v
			}
		}
	}
	for {
		if v := g.bg.next64() & mask; v <= limit {
			return v
		}
	}
}
