package numpyrand

import (
	"fmt"
	"math"
)

// Legacy reproduces np.random.RandomState, which is also the global
// np.random generator after np.random.seed(seed). Its distributions are
// NumPy's frozen "legacy" ones (the polar Box-Muller gauss with a cached
// second deviate, -log(1-U) exponentials, Marsaglia-Tsang gamma on top of
// them) rather than the ziggurat methods of np.random.Generator.
//
// A Legacy is not safe for concurrent use.
type Legacy struct {
	mt       mt19937
	hasGauss bool
	gauss    float64
}

// NewLegacy returns the generator np.random.seed(seed) produces: MT19937
// seeded with init_genrand and an empty gauss cache. NumPy accepts integer
// seeds in [0, 2**32), which is exactly the uint32 range.
func NewLegacy(seed uint32) *Legacy {
	r := &Legacy{}
	r.Seed(seed)
	return r
}

// Seed re-seeds r in place, like calling np.random.seed(seed) again. It also
// clears the cached normal deviate, as RandomState.seed does.
func (r *Legacy) Seed(seed uint32) {
	r.mt.seed(seed)
	r.hasGauss = false
	r.gauss = 0
}

// Uint32 returns the next raw 32-bit MT19937 output (what
// RandomState._bit_generator.random_raw() yields).
func (r *Legacy) Uint32() uint32 { return r.mt.next32() }

// RandomSample returns a float64 in [0, 1) like np.random.random_sample():
// 53 random bits built from two consecutive 32-bit outputs.
func (r *Legacy) RandomSample() float64 { return r.mt.nextDouble() }

// StandardExponential returns np.random.standard_exponential(): the legacy
// inversion method -log(1-U), which consumes exactly one double.
func (r *Legacy) StandardExponential() float64 {
	return -math.Log(1.0 - r.mt.nextDouble())
}

// Gauss returns np.random.standard_normal() using NumPy's legacy polar
// Box-Muller method. Each accepted pair yields two deviates; the second is
// cached and returned by the next call, so the cache is part of the stream
// state and must be reproduced for later draws to line up.
func (r *Legacy) Gauss() float64 {
	if r.hasGauss {
		r.hasGauss = false
		g := r.gauss
		r.gauss = 0
		return g
	}
	var x1, x2, r2 float64
	for {
		// 2*U is exact, so these cannot be perturbed by fusion.
		x1 = 2.0*r.mt.nextDouble() - 1.0
		x2 = 2.0*r.mt.nextDouble() - 1.0
		r2 = float64(x1*x1) + float64(x2*x2)
		if r2 < 1.0 && r2 != 0.0 {
			break
		}
	}
	f := math.Sqrt(-2.0 * math.Log(r2) / r2)
	r.gauss = f * x1
	r.hasGauss = true
	return f * x2
}

// StandardGamma returns np.random.standard_gamma(shape) with the legacy
// algorithm (legacy_standard_gamma): the legacy exponential for shape 1, 0
// for shape 0, for shape < 1 a rejection method that proposes U^(1/shape)
// (or its counterpart on the upper branch) against a legacy exponential, and
// for shape > 1 Marsaglia and Tsang's squeeze method on legacy gauss
// deviates. The number of raw draws per variate varies with the rejections,
// which is why the loops must match NumPy's exactly.
//
// It panics if shape is negative or NaN, where NumPy raises ValueError.
func (r *Legacy) StandardGamma(shape float64) float64 {
	if !(shape >= 0) {
		panic(fmt.Sprintf("numpyrand: standard gamma shape must be >= 0, got %v", shape))
	}
	switch {
	case shape == 1.0:
		return r.StandardExponential()
	case shape == 0.0:
		return 0.0
	case shape < 1.0:
		for {
			u := r.mt.nextDouble()
			v := r.StandardExponential()
			if u <= 1.0-shape {
				x := math.Pow(u, 1.0/shape)
				if x <= v {
					return x
				}
			} else {
				y := -math.Log((1.0 - u) / shape)
				// C evaluates 1.0 - shape + shape*Y left to right with
				// separate roundings; the conversion forbids an FMA.
				x := math.Pow((1.0-shape)+float64(shape*y), 1.0/shape)
				if x <= v+y {
					return x
				}
			}
		}
	default:
		b := shape - 1.0/3.0
		c := 1.0 / math.Sqrt(9*b)
		for {
			var x, v float64
			for {
				x = r.Gauss()
				v = 1.0 + float64(c*x)
				if v > 0.0 {
					break
				}
			}
			v = v * v * v
			u := r.mt.nextDouble()
			x2 := float64(x * x)
			if u < 1.0-float64(0.0331*x2*x2) {
				return b * v
			}
			if math.Log(u) < float64(0.5*x*x)+float64(b*(1.0-v+math.Log(v))) {
				return b * v
			}
		}
	}
}

// Gamma returns np.random.gamma(shape, scale): scale times a legacy standard
// gamma variate. vLLM's inter-arrival time is
// Gamma(burstiness, 1/(rate*burstiness)).
//
// It panics if shape or scale is negative or NaN, where NumPy raises
// ValueError.
func (r *Legacy) Gamma(shape, scale float64) float64 {
	if !(scale >= 0) {
		panic(fmt.Sprintf("numpyrand: gamma scale must be >= 0, got %v", scale))
	}
	return scale * r.StandardGamma(shape)
}

// RandInt returns np.random.randint(low, high) for the default int64 dtype:
// a uniform integer in [low, high). The legacy generator keeps NumPy's
// backward-compatible masked rejection sampling (draw, AND with the smallest
// all-ones mask covering the span, retry if above it) using 32-bit draws when
// the span fits in 32 bits and 64-bit draws otherwise.
//
// It panics if low >= high, where NumPy raises ValueError("low >= high").
func (r *Legacy) RandInt(low, high int64) int64 {
	rng, off := span(low, high, "RandInt")
	return int64(off + r.boundedMasked(rng))
}

// RandIntN returns np.random.randint(low, high, size=n). The array path of
// the int64 dtype runs the same per-element loop as the scalar path, so this
// equals n calls of RandInt.
//
// It panics if low >= high or n < 0.
func (r *Legacy) RandIntN(low, high int64, n int) []int64 {
	return fillBounded(low, high, n, "RandIntN", r.boundedMasked)
}

// boundedMasked is one element of random_bounded_uint64_fill with
// use_masked=true: a value in [0, rng].
func (r *Legacy) boundedMasked(rng uint64) uint64 {
	switch {
	case rng == 0:
		// A single-value range consumes no randomness.
		return 0
	case rng == math.MaxUint32:
		return uint64(r.mt.next32())
	case rng < math.MaxUint32:
		mask := uint32(genMask(rng))
		for {
			v := r.mt.next32() & mask
			if uint64(v) <= rng {
				return uint64(v)
			}
		}
	case rng == math.MaxUint64:
		return r.mt.next64()
	default:
		mask := genMask(rng)
		for {
			v := r.mt.next64() & mask
			if v <= rng {
				return v
			}
		}
	}
}

// genMask is the smallest all-ones bit mask that covers max.
func genMask(max uint64) uint64 {
	m := max
	m |= m >> 1
	m |= m >> 2
	m |= m >> 4
	m |= m >> 8
	m |= m >> 16
	m |= m >> 32
	return m
}

// span converts an exclusive int64 interval to NumPy's (rng, off) form: the
// closed span high-1-low and the offset low, both as uint64 so that the
// widest interval [-2**63, 2**63-1) wraps correctly.
func span(low, high int64, fn string) (rng, off uint64) {
	if low >= high {
		panic(fmt.Sprintf("numpyrand: %s: low >= high (low=%d, high=%d)", fn, low, high))
	}
	return uint64(high) - uint64(low) - 1, uint64(low)
}
