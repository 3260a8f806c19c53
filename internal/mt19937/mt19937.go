// Package mt19937 is the Mersenne Twister generator (Matsumoto and
// Nishimura, 1998) as both NumPy's legacy RandomState and CPython's random
// module implement it: same state, same regeneration, same tempering, same
// 53-bit doubles. The two differ only in how an integer seed fills the
// state, so both seedings are here (SeedScalar for NumPy's
// np.random.seed(int), SeedArray for CPython's random.seed(int)), and
// packages numpyrand and pyrandom build their distributions on top.
package mt19937

// Generator parameters (numpy/random/src/mt19937/mt19937.h,
// CPython Modules/_randommodule.c).
const (
	n         = 624
	m         = 397
	matrixA   = 0x9908b0df
	upperMask = 0x80000000
	lowerMask = 0x7fffffff
)

// MT is the generator state. The zero value is not seeded; call SeedScalar
// or SeedArray first. It is not safe for concurrent use.
type MT struct {
	key [n]uint32
	pos int
}

// SeedScalar is init_genrand(s) (NumPy's mt19937_seed). The position is left
// at the end, so the first draw regenerates the state, as both libraries do.
func (g *MT) SeedScalar(s uint32) {
	for i := 0; i < n; i++ {
		g.key[i] = s
		s = 1812433253*(s^(s>>30)) + uint32(i) + 1
	}
	g.pos = n
}

// SeedArray is init_by_array(key) (CPython's random.seed for an int: the
// magnitude split into 32-bit words, least significant first).
func (g *MT) SeedArray(key []uint32) {
	g.SeedScalar(19650218)
	mt := &g.key
	i, j := 1, 0
	for k := max(n, len(key)); k > 0; k-- {
		mt[i] = (mt[i] ^ ((mt[i-1] ^ (mt[i-1] >> 30)) * 1664525)) + key[j] + uint32(j)
		i++
		j++
		if i >= n {
			mt[0] = mt[n-1]
			i = 1
		}
		if j >= len(key) {
			j = 0
		}
	}
	for k := n - 1; k > 0; k-- {
		mt[i] = (mt[i] ^ ((mt[i-1] ^ (mt[i-1] >> 30)) * 1566083941)) - uint32(i)
		i++
		if i >= n {
			mt[0] = mt[n-1]
			i = 1
		}
	}
	mt[0] = 0x80000000 // MSB is 1, assuring a non-zero initial array
	g.pos = n
}

// regenerate refills the whole key (mt19937_gen / the reload step of
// genrand_uint32).
func (g *MT) regenerate() {
	k := &g.key
	var i int
	for i = 0; i < n-m; i++ {
		y := (k[i] & upperMask) | (k[i+1] & lowerMask)
		k[i] = k[i+m] ^ (y >> 1) ^ (-(y & 1) & matrixA)
	}
	for ; i < n-1; i++ {
		y := (k[i] & upperMask) | (k[i+1] & lowerMask)
		k[i] = k[i+m-n] ^ (y >> 1) ^ (-(y & 1) & matrixA)
	}
	y := (k[n-1] & upperMask) | (k[0] & lowerMask)
	k[n-1] = k[m-1] ^ (y >> 1) ^ (-(y & 1) & matrixA)
	g.pos = 0
}

// Uint32 returns one tempered 32-bit output (mt19937_next, genrand_uint32).
func (g *MT) Uint32() uint32 {
	if g.pos >= n {
		g.regenerate()
	}
	y := g.key[g.pos]
	g.pos++
	y ^= y >> 11
	y ^= (y << 7) & 0x9d2c5680
	y ^= (y << 15) & 0xefc60000
	y ^= y >> 18
	return y
}

// Float64 returns a float64 in [0, 1) made of 53 bits from two outputs, a
// 27-bit high part and a 26-bit low part (NumPy's mt19937_next_double,
// CPython's random.random). Every step is exact in float64.
func (g *MT) Float64() float64 {
	a := g.Uint32() >> 5
	b := g.Uint32() >> 6
	return (float64(a)*67108864.0 + float64(b)) / 9007199254740992.0
}
