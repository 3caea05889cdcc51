package diag

import (
	"math"
	"slices"
	"sync"
	"sync/atomic"

	"gonum.org/v1/gonum/mathext"
)

// draws is one parameter's chains laid out for the diagnostics, with the
// scratch they need; a draws is reused from parameter to parameter so that
// a summary of many parameters allocates little.
type draws struct {
	m, n, h int       // chains, draws per chain, draws per split half
	all     []float64 // the draws chain after chain
	sorted  []float64 // all, sorted
	bad     bool      // posterior's should_return_NA of all draws: NaN, ±Inf or constant
	nan     bool      // some draw is NaN
	mean    float64   // R's mean of all draws
	vr      float64   // R's var of all draws

	split  [][]float64 // views of all as 2m split chains of h draws (see buildSplitViews)
	quirk  []float64   // the split chains when posterior's are two of m draws
	zbDone bool        // views[0] holds zBulk for this parameter
	zbOK   bool

	// Split-layout ranks: the draws of the split chains in ascending order
	// (sv) and where each sits in the split layout (sd).
	sv []float64
	sd []uint32

	keys, tmpK []uint64
	at         []uint32 // at[i] is the index in all of sorted[i]
	idx        []int32  // splitIndex of every draw, for chains of idxM × idxN
	idxM, idxN int
	fv         []float64 // folded values in ascending order
	fd         []uint32
	buf        [3][]float64 // split-layout series: z bulk, z folded, f(x − mean)
	views      [3][][]float64
	acov       acovWork
	tail, gpd  []float64 // Pareto k̂'s tail and its fit's grid
}

var drawsPool = sync.Pool{New: func() any { return new(draws) }}

// load lays out chains; ok is false when the chains are empty or of unequal
// lengths, for which every statistic is NaN.
func (d *draws) load(chains [][]float64) (ok bool) {
	d.m = len(chains)
	if d.m == 0 || len(chains[0]) == 0 {
		return false
	}
	d.n = len(chains[0])
	for _, c := range chains {
		if len(c) != d.n {
			return false
		}
	}
	s := d.m * d.n
	d.all = grow(d.all, s)[:0]
	for _, c := range chains {
		d.all = append(d.all, c...)
	}
	d.h = d.n / 2
	d.split = d.split[:0]
	d.zbDone = false
	d.buildSplitViews(&d.split, d.all)
	d.sortDraws()
	d.mean, d.vr = meanVar(d.all)
	return true
}

// buildSplitViews sets *views to the split chains of a series in the
// pooled layout (chain after chain, n draws each), as posterior's
// .split_chains: the first ⌊n/2⌋ draws of every chain, then the last ⌊n/2⌋
// of every chain; the middle draw of an odd length is dropped, and chains
// of one draw stay whole.
//
// For n = 2 or 3 posterior's matrix indexing drops a dimension, and its
// "split chains" are two chains of m draws: the first draws of every chain,
// then the last draws. That is reproduced here (in a copy), so that results
// for so few draws are posterior's too.
func (d *draws) buildSplitViews(views *[][]float64, series []float64) {
	v := (*views)[:0]
	switch {
	case d.n == 1:
		for c := 0; c < d.m; c++ {
			v = append(v, series[c:c+1])
		}
	case d.h == 1:
		d.quirk = grow(d.quirk, 2*d.m)
		for c := 0; c < d.m; c++ {
			d.quirk[c] = series[c*d.n]
			d.quirk[d.m+c] = series[(c+1)*d.n-1]
		}
		v = append(v, d.quirk[:d.m], d.quirk[d.m:])
	default:
		for c := 0; c < d.m; c++ {
			v = append(v, series[c*d.n:c*d.n+d.h])
		}
		for c := 0; c < d.m; c++ {
			v = append(v, series[(c+1)*d.n-d.h:(c+1)*d.n])
		}
	}
	*views = v
}

// splitIndex is where pooled draw p sits in the split layout (split chain
// after split chain), or −1 for a dropped middle draw.
func (d *draws) splitIndex(p int) int {
	c, i := p/d.n, p%d.n
	switch {
	case d.n == 1:
		return c
	case d.h == 1 && i == 0:
		return c
	case d.h == 1 && i == d.n-1:
		return d.m + c
	case d.h == 1:
		return -1
	case i < d.h:
		return c*d.h + i
	case i >= d.n-d.h:
		return (d.m+c)*d.h + i - (d.n - d.h)
	}
	return -1
}

// sortDraws sorts all draws, keeping where each one goes in the split
// layout, and sets bad and nan.
func (d *draws) sortDraws() {
	s := len(d.all)
	d.keys, d.tmpK = grow(d.keys, s), grow(d.tmpK, s)
	d.at = grow(d.at, s)
	d.sorted = grow(d.sorted, s)
	argsort(d.all, d.sorted, d.at, d.keys, d.tmpK)
	d.nan, d.bad = false, false
	lo, hi := d.sorted[0], d.sorted[s-1]
	if math.IsInf(lo, 0) || math.IsInf(hi, 0) || math.Abs(hi-lo) < eps {
		d.bad = true
	}
	// NaN sorts to either end; only there need it be looked for.
	if lo != lo || hi != hi {
		d.nan, d.bad = true, true
	}
	idx := d.layout()
	d.sv, d.sd = grow(d.sv, s), grow(d.sd, s)
	k := 0
	for i, p := range d.at {
		if j := idx[p]; j >= 0 {
			d.sv[k], d.sd[k] = d.sorted[i], uint32(j)
			k++
		}
	}
	d.sv, d.sd = d.sv[:k], d.sd[:k]
}

// layout returns splitIndex of every draw, kept from the last parameter
// when the chains have the same shape.
func (d *draws) layout() []int32 {
	if d.idxM == d.m && d.idxN == d.n && len(d.idx) == d.m*d.n {
		return d.idx
	}
	d.idx = grow(d.idx, d.m*d.n)
	for p := range d.idx {
		d.idx[p] = int32(d.splitIndex(p))
	}
	d.idxM, d.idxN = d.m, d.n
	return d.idx
}

// median is R's median of all draws.
func (d *draws) median() float64 { return quantileMedian(d.sorted) }

// zBulk returns the rank-normalised split chains (posterior's
// z_scale(.split_chains(x))), computed once per parameter, and whether they
// pass posterior's NA check (they are finite, so: not all tied).
func (d *draws) zBulk() ([][]float64, bool) {
	if !d.zbDone {
		out := d.series(0)
		d.zbOK = rankZ(d.sv, d.sd, out) > 1
		d.zbDone = true
	}
	return d.views[0], d.zbOK
}

// zFolded returns the rank-normalised split chains of the draws folded
// about their median (z_scale(.split_chains(fold_draws(x)))). The folded
// values come in ascending order by merging the two sides of the median in
// the sorted draws, without a second sort.
func (d *draws) zFolded() ([][]float64, bool) {
	med := d.median()
	if math.IsInf(med, 0) {
		return nil, false // |x − med| is NaN for x = med: posterior's ranks are NA
	}
	sv, sd := d.sv, d.sd
	k := len(sv)
	d.fv, d.fd = grow(d.fv, k), grow(d.fd, k)
	fv, fd := d.fv, d.fd
	r, _ := slices.BinarySearch(sv, med) // first draw ≥ med
	l, o := r-1, 0
	// |x − med| is med − x below the median: fl(x − med) = −fl(med − x).
	for ; l >= 0 && r < k; o++ {
		a, b := med-sv[l], sv[r]-med
		if a <= b {
			fv[o], fd[o] = a, sd[l]
			l--
		} else {
			fv[o], fd[o] = b, sd[r]
			r++
		}
	}
	for ; l >= 0; o, l = o+1, l-1 {
		fv[o], fd[o] = med-sv[l], sd[l]
	}
	for ; r < k; o, r = o+1, r+1 {
		fv[o], fd[o] = sv[r]-med, sd[r]
	}
	out := d.series(1)
	ok := rankZ(d.fv, d.fd, out) > 1
	return d.views[1], ok
}

// centred returns the split chains of f(x − mean), the mean over all draws.
func (d *draws) centred(f func(float64) float64) [][]float64 {
	out := d.series(2)
	for _, c := range d.split {
		for _, x := range c {
			out = append(out, f(x-d.mean))
		}
	}
	return d.views[2]
}

// indicatorVaries reports whether the indicator x ≤ q over the split
// chains takes both values, which posterior's NA check asks.
func (d *draws) indicatorVaries(q float64) bool {
	return len(d.sv) > 0 && d.sv[0] <= q && d.sv[len(d.sv)-1] > q
}

// series readies scratch series k in the split layout and its views,
// returning it with length 0 and the capacity of the split layout.
func (d *draws) series(k int) []float64 {
	size := len(d.split) * len(d.split[0])
	d.buf[k] = grow(d.buf[k], size)
	h := len(d.split[0])
	v := d.views[k][:0]
	for c := range d.split {
		v = append(v, d.buf[k][c*h:(c+1)*h])
	}
	d.views[k] = v
	return d.buf[k][:0]
}

// rankZ writes to out[dst[i]] the normal score Φ⁻¹((r − 3/8)/(S + 1/4)) of
// the rank r of vals[i] among the S sorted vals, ties given their average
// rank, as posterior's z_scale with its fractional offset 3/8. It returns
// the number of distinct values.
func rankZ(vals []float64, dst []uint32, out []float64) int {
	groups := 0
	out = out[:cap(out)]
	s := len(vals)
	tab := zTableFor(s)
	for lo := 0; lo < s; {
		hi := lo + 1
		for hi < s && vals[hi] == vals[lo] {
			hi++
		}
		var z float64
		if hi == lo+1 {
			z = tab[lo]
		} else {
			z = zScore(float64(lo+1+hi)/2, s) // average of ranks lo+1..hi
		}
		for _, j := range dst[lo:hi] {
			out[j] = z
		}
		lo = hi
		groups++
	}
	return groups
}

// zScore is posterior's qnorm(backtransform_ranks(r)) for rank r of s.
func zScore(r float64, s int) float64 {
	const c = 3.0 / 8
	return mathext.NormalQuantile((r - c) / (float64(s) - 2*c + 1))
}

// zTable holds zScore(r, s) for the integer ranks r = 1..s: every parameter
// of a summary has the same number of draws, so the normal quantiles are
// computed once.
type zTable struct {
	s int
	z []float64
}

var lastZTable atomic.Pointer[zTable]

func zTableFor(s int) []float64 {
	if t := lastZTable.Load(); t != nil && t.s == s {
		return t.z
	}
	t := &zTable{s: s, z: make([]float64, s)}
	for i := range t.z {
		t.z[i] = zScore(float64(i+1), s)
	}
	lastZTable.Store(t)
	return t.z
}

// grow returns buf resized to n, reusing its storage when large enough.
func grow[T any](buf []T, n int) []T {
	if cap(buf) < n {
		return make([]T, n)
	}
	return buf[:n]
}
