package finitemix

import "math"

// expTab[j] is 2^(j/32).
var expTab = func() (t [32]float64) {
	for j := range t {
		t[j] = math.Exp2(float64(j) / 32)
	}
	return t
}()

// expRelErr bounds fastExp's relative error on (−700, 700): the
// polynomial's truncation (|r|^6/720 ≤ 2.2e-15 at |r| ≤ ln2/64) and a few
// roundings, with room to spare (TestFastExp measures about 4e-16).
const expRelErr = 1e-13

// fastExp is e^x to within expRelErr relative error, about twice as cheap
// as math.Exp: x = (32m + j)·ln2/32 + r with |r| ≤ ln2/64, e^x =
// 2^m·2^(j/32)·e^r, e^r by its Taylor polynomial of degree 5. It is 0
// below −700 and +Inf above 700 (and NaN for NaN). Deterministic, so a
// proposal built on it is one law, read the same way both ways; where a
// draw must follow exact probabilities, the caller decides only where
// expRelErr cannot change the outcome (MixDA.allocate).
func fastExp(x float64) float64 {
	if !(x > -700) {
		if x != x {
			return x
		}
		return 0
	}
	if x > 700 {
		return math.Inf(1)
	}
	const (
		shifter = 0x1.8p52
		inv     = 32 / math.Ln2
		// ln2/32 split so that k·hi is exact for |k| < 2^20.
		hi = 0x1.62e42fefa0000p-6
		lo = 0x1.cf79abc9e3b3ap-45
	)
	t := x*inv + shifter
	k := t - shifter
	n := int64(math.Float64bits(t)) & 0xffffffff // k as an integer (two's complement in the low bits)
	n = int64(int32(n))
	r := x - k*hi - k*lo
	p := 1 + r*(1+r*(0.5+r*(1.0/6+r*(1.0/24+r*(1.0/120)))))
	return p * expTab[n&31] * math.Float64frombits(uint64(n>>5+1023)<<52)
}
