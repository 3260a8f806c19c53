package numpyrand

import "math/bits"

// SeedSequence constants from numpy/random/bit_generator.pyx.
const (
	ssPoolSize = 4
	ssInitA    = 0x43b0d7e5
	ssMultA    = 0x931e8875
	ssInitB    = 0x8b51f9dd
	ssMultB    = 0x58f38ded
	ssMixMultL = 0xca01f9dd
	ssMixMultR = 0x4973f715
	ssXShift   = 16
)

// seedSequenceState returns SeedSequence(seed).generate_state(4, np.uint64),
// the four words PCG64 is seeded from. The integer entropy is split into
// little-endian 32-bit words ([0] for zero), hashed into a 4-word pool,
// mixed all-pairs, and then expanded by a second hash.
func seedSequenceState(seed uint64) [4]uint64 {
	entropy := []uint32{uint32(seed)}
	if hi := uint32(seed >> 32); hi != 0 {
		entropy = append(entropy, hi)
	}

	hashConst := uint32(ssInitA)
	hashmix := func(v uint32) uint32 {
		v ^= hashConst
		hashConst *= ssMultA
		v *= hashConst
		v ^= v >> ssXShift
		return v
	}
	mix := func(x, y uint32) uint32 {
		r := ssMixMultL*x - ssMixMultR*y
		r ^= r >> ssXShift
		return r
	}

	var pool [ssPoolSize]uint32
	for i := range pool {
		if i < len(entropy) {
			pool[i] = hashmix(entropy[i])
		} else {
			pool[i] = hashmix(0)
		}
	}
	for src := range pool {
		for dst := range pool {
			if src != dst {
				pool[dst] = mix(pool[dst], hashmix(pool[src]))
			}
		}
	}
	// Entropy longer than the pool is folded in afterwards. A uint64 seed
	// has at most two words, so this loop never runs; it is kept so the
	// function reads like NumPy's mix_entropy.
	for src := ssPoolSize; src < len(entropy); src++ {
		for dst := range pool {
			pool[dst] = mix(pool[dst], hashmix(entropy[src]))
		}
	}

	var words [8]uint32
	hashConst = ssInitB
	for i := range words {
		v := pool[i%ssPoolSize]
		v ^= hashConst
		hashConst *= ssMultB
		v *= hashConst
		v ^= v >> ssXShift
		words[i] = v
	}
	var out [4]uint64
	for i := range out {
		out[i] = uint64(words[2*i]) | uint64(words[2*i+1])<<32
	}
	return out
}

// PCG64 128-bit LCG multiplier (PCG_DEFAULT_MULTIPLIER_128).
const (
	pcgMultHi = 0x2360ed051fc65da4
	pcgMultLo = 0x4385df649fccf645
)

// pcg64 is NumPy's PCG64 bit generator: a 128-bit LCG with the XSL-RR output
// function, plus the one-word buffer NumPy uses to serve 32-bit draws.
type pcg64 struct {
	stateHi, stateLo uint64
	incHi, incLo     uint64
	hasUint32        bool
	uinteger         uint32
}

// newPCG64 seeds like PCG64(SeedSequence(seed)): initstate = v0<<64|v1,
// initseq = v2<<64|v3, then pcg_setseq_128_srandom_r.
func newPCG64(seed uint64) *pcg64 {
	v := seedSequenceState(seed)
	p := &pcg64{}
	// inc = initseq<<1 | 1.
	p.incHi = v[2]<<1 | v[3]>>63
	p.incLo = v[3]<<1 | 1
	p.step()
	var carry uint64
	p.stateLo, carry = bits.Add64(p.stateLo, v[1], 0)
	p.stateHi, _ = bits.Add64(p.stateHi, v[0], carry)
	p.step()
	return p
}

// step advances the LCG: state = state*mult + inc (mod 2**128).
func (p *pcg64) step() {
	hi, lo := bits.Mul64(p.stateLo, pcgMultLo)
	hi += p.stateHi*pcgMultLo + p.stateLo*pcgMultHi
	var carry uint64
	lo, carry = bits.Add64(lo, p.incLo, 0)
	hi, _ = bits.Add64(hi, p.incHi, carry)
	p.stateHi, p.stateLo = hi, lo
}

// next64 steps and returns XSL-RR of the new state.
func (p *pcg64) next64() uint64 {
	p.step()
	return bits.RotateLeft64(p.stateHi^p.stateLo, -int(p.stateHi>>58))
}

// next32 returns the low half of a fresh 64-bit output and keeps the high
// half for the next call. The buffer belongs to the bit generator, so it
// survives calls to other methods (random(), other ranges, vector calls).
func (p *pcg64) next32() uint32 {
	if p.hasUint32 {
		p.hasUint32 = false
		return p.uinteger
	}
	n := p.next64()
	p.hasUint32 = true
	p.uinteger = uint32(n >> 32)
	return uint32(n)
}

// nextDouble is pcg64_next_double: the top 53 bits of one 64-bit output.
func (p *pcg64) nextDouble() float64 {
	return float64(p.next64()>>11) * (1.0 / 9007199254740992.0)
}
