// Package numpyrand reproduces NumPy's random streams bit for bit, so that a
// gobench run seeded like a `vllm bench serve` run draws the same numbers.
//
// Two generators are provided:
//
//   - [Legacy] is np.random.RandomState, i.e. the global np.random after
//     np.random.seed(seed): MT19937 seeded with init_genrand, with NumPy's
//     "legacy" distributions (numpy/random/src/legacy/legacy-distributions.c
//     and mtrand.pyx). vLLM draws its request inter-arrival times from it with
//     np.random.gamma(shape=burstiness, scale=1/(rate*burstiness)), and the
//     prefix_repetition dataset draws token ids with np.random.randint.
//   - [Generator] is np.random.default_rng(seed): PCG64 (XSL-RR 128/64)
//     seeded through SeedSequence, with Lemire's bounded integers
//     (numpy/random/_generator.pyx, bit_generator.pyx, _pcg64.pyx,
//     src/distributions/distributions.c). vLLM's random, random-mm and
//     random-rerank datasets draw lengths and token ids from it with
//     rng.integers.
//
// # Why hand-written
//
// No Go library reproduces NumPy's streams. golang.org/x/exp/rand is
// deprecated (go.dev/issue/61716) and has no gamma distribution;
// math/rand/v2's PCG uses a fixed increment and the DXSM output function, so
// even its PCG stream differs from NumPy's PCG64; gonum's distuv.Gamma is a
// different algorithm on a different source. Matching vLLM's schedules and
// datasets therefore requires porting the generators and the exact
// accept/reject loops, which is what this package does, using only the
// standard library.
//
// # Exactness
//
// Integer outputs (raw words, RandInt, Integers) and uniform doubles are
// bit-identical to NumPy. Distributions that call log, pow, sqrt or exp use
// Go's pure-Go math package, which differs from glibc's libm in the last bit
// on a small fraction of inputs (math.Log on ~2.6 %, math.Pow on ~43 %). The
// results therefore agree with NumPy to 1-2 ulp (at most 8e-16 relative in
// the golden tests), while the streams never desynchronise: every accept/reject
// decision and the number of raw draws per variate match NumPy (checked over
// 100,000-draw streams in the tests). NumPy's own legacy gamma stream depends
// on the platform libm too, so the tests' expected values come from NumPy
// 1.24.2 on Linux/glibc. Arithmetic that could be contracted into a fused
// multiply-add on some architectures is written with explicit float64
// conversions, which the Go specification defines to round and so forbid
// fusion; this keeps the results the same on every GOARCH, whatever its
// fusion rules.
//
// The generators are not safe for concurrent use; give each goroutine its
// own, as NumPy's per-object state implies.
package numpyrand
