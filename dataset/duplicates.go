package dataset

import (
	"fmt"
	"hash/maphash"
	"math"
	"strings"
)

// duplicates warns of features that hold the same value as an earlier one
// in every example: the likelihood then sees only the sum of their
// coefficients, so each one's posterior spreads as far as its prior allows
// (with a wide prior, a huge sd that looks converged). Columns are grouped
// by a hash of their values and compared in full within a group.
func (d *Data) duplicates(file string) {
	seed := maphash.MakeSeed()
	groups := map[uint64][]int{}
	var pairs []string
	for j := range d.P {
		var h maphash.Hash
		h.SetSeed(seed)
		var b [8]byte
		for i := range d.N {
			u := math.Float64bits(d.X[i*d.P+j])
			for k := range b {
				b[k] = byte(u >> (8 * k))
			}
			h.Write(b[:])
		}
		key := h.Sum64()
		for _, k := range groups[key] {
			if d.sameColumn(j, k) {
				pairs = append(pairs, fmt.Sprintf("column %d (%q) repeats column %d (%q)", d.cols[j]+1, d.Names[j], d.cols[k]+1, d.Names[k]))
				break
			}
		}
		groups[key] = append(groups[key], j)
	}
	if len(pairs) > 0 {
		d.Warnings = append(d.Warnings, fmt.Sprintf("%s: %s: the data tell only the sum of such coefficients, so each one's posterior is as wide as its prior allows; drop the repeated column(s)", file, strings.Join(pairs, ", ")))
	}
}

// sameColumn says whether features j and k hold the same value in every
// example.
func (d *Data) sameColumn(j, k int) bool {
	for i := range d.N {
		if d.X[i*d.P+j] != d.X[i*d.P+k] {
			return false
		}
	}
	return true
}
