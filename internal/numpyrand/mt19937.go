package numpyrand

import mt "github.com/gobench/gobench/internal/mt19937"

// mt19937 is NumPy's MT19937 bit generator: the shared Mersenne Twister
// with NumPy's names for its outputs.
type mt19937 struct{ g mt.MT }

// seed is NumPy's mt19937_seed (init_genrand).
func (m *mt19937) seed(s uint32) { m.g.SeedScalar(s) }

// next32 is mt19937_next: one tempered 32-bit output.
func (m *mt19937) next32() uint32 { return m.g.Uint32() }

// next64 is mt19937_next64. The C source is `(uint64_t)next(state) << 32 |
// next(state)`, whose operand order C leaves unspecified; NumPy's builds
// evaluate left to right, so the first word is the high half (confirmed
// against NumPy's randint over 64-bit ranges in the tests).
func (m *mt19937) next64() uint64 {
	hi := uint64(m.g.Uint32())
	lo := uint64(m.g.Uint32())
	return hi<<32 | lo
}

// nextDouble is mt19937_next_double.
func (m *mt19937) nextDouble() float64 { return m.g.Float64() }
