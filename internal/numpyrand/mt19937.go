package numpyrand

// MT19937 parameters, as in numpy/random/src/mt19937/mt19937.h.
const (
	mtN         = 624
	mtM         = 397
	mtMatrixA   = 0x9908b0df
	mtUpperMask = 0x80000000
	mtLowerMask = 0x7fffffff
)

// mt19937 is NumPy's MT19937 state: the 624-word key and the read position.
type mt19937 struct {
	key [mtN]uint32
	pos int
}

// seed is NumPy's mt19937_seed (Matsumoto and Nishimura's init_genrand).
// The position is left at the end so the first draw regenerates the state,
// as NumPy does.
func (m *mt19937) seed(s uint32) {
	for i := 0; i < mtN; i++ {
		m.key[i] = s
		s = 1812433253*(s^(s>>30)) + uint32(i) + 1
	}
	m.pos = mtN
}

// gen regenerates the whole key (mt19937_gen).
func (m *mt19937) gen() {
	k := &m.key
	var i int
	for i = 0; i < mtN-mtM; i++ {
		y := (k[i] & mtUpperMask) | (k[i+1] & mtLowerMask)
		k[i] = k[i+mtM] ^ (y >> 1) ^ (-(y & 1) & mtMatrixA)
	}
	for ; i < mtN-1; i++ {
		y := (k[i] & mtUpperMask) | (k[i+1] & mtLowerMask)
		k[i] = k[i+mtM-mtN] ^ (y >> 1) ^ (-(y & 1) & mtMatrixA)
	}
	y := (k[mtN-1] & mtUpperMask) | (k[0] & mtLowerMask)
	k[mtN-1] = k[mtM-1] ^ (y >> 1) ^ (-(y & 1) & mtMatrixA)
	m.pos = 0
}

// next32 is mt19937_next: one tempered 32-bit output.
func (m *mt19937) next32() uint32 {
	if m.pos == mtN {
		m.gen()
	}
	y := m.key[m.pos]
	m.pos++
	y ^= y >> 11
	y ^= (y << 7) & 0x9d2c5680
	y ^= (y << 15) & 0xefc60000
	y ^= y >> 18
	return y
}

// next64 is mt19937_next64. The C source is `(uint64_t)next(state) << 32 |
// next(state)`, whose operand order C leaves unspecified; NumPy's builds
// evaluate left to right, so the first word is the high half (confirmed
// against NumPy's randint over 64-bit ranges in the tests).
func (m *mt19937) next64() uint64 {
	hi := uint64(m.next32())
	lo := uint64(m.next32())
	return hi<<32 | lo
}

// nextDouble is mt19937_next_double: 53 random bits from two words, a 27-bit
// high part and a 26-bit low part. Every step is exact in float64.
func (m *mt19937) nextDouble() float64 {
	a := m.next32() >> 5
	b := m.next32() >> 6
	return (float64(a)*67108864.0 + float64(b)) / 9007199254740992.0
}
