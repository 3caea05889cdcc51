package exchange

import "github.com/fresgld/fresgld/internal/pad"

// ReplicaStats is what one replica's walk over the levels did.
//
// A tempered restart is a passage from the hottest level down to the coldest:
// the replica arrives at level 0 having visited level K−1 since it was last
// at level 0. It carries a state freshly mixed at the hottest level to the
// target, which is how parallel tempering crosses barriers. A round trip is a
// restart by a replica that had already been at level 0 before it went up:
// 0 → K−1 → 0. (Syed et al. 2022 and Pigeons.jl count the same events; a
// replica's round trips are its restarts, less one if it started above 0.)
type ReplicaStats struct {
	RoundTrips int `json:"round_trips"`
	Restarts   int `json:"restarts"`
}

// trips follows which extreme level each replica last visited.
type trips struct {
	reps []ReplicaStats
	last []int8 // 0: neither extreme yet; 1: level 0; 2: level K−1
	seen []bool // the replica has been at level 0 before its last ascent
}

const (
	atNone int8 = iota
	atBottom
	atTop
)

func newTrips(K int) trips {
	return trips{reps: pad.Slice[ReplicaStats](K), last: pad.Slice[int8](K), seen: pad.Slice[bool](K)}
}

// observe updates the counts from the replica at each level, at[l]. Only
// the two extremes matter, so this is O(1). With one level there is nothing
// to traverse.
func (t *trips) observe(at []int) {
	K := len(at)
	if K < 2 {
		return
	}
	t.last[at[K-1]] = atTop
	r := at[0]
	switch t.last[r] {
	case atTop:
		t.reps[r].Restarts++
		if t.seen[r] {
			t.reps[r].RoundTrips++
		}
		fallthrough
	case atNone:
		t.last[r], t.seen[r] = atBottom, true
	}
}

// Sum is the round trips and restarts of all replicas together.
func Sum(reps []ReplicaStats) ReplicaStats {
	var s ReplicaStats
	for _, r := range reps {
		s.RoundTrips += r.RoundTrips
		s.Restarts += r.Restarts
	}
	return s
}
