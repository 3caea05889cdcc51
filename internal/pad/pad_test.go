package pad

import (
	"slices"
	"testing"
	"unsafe"
)

// TestApart allocates many padded objects of sizes below, at and above a
// cache line and checks that between any two of them lie at least 2·line
// bytes that neither uses: each allocation holds line bytes of padding on
// either side of its payload, so whatever the allocator places where,
// payloads cannot come closer. Unpadded, objects of one size class sit
// side by side.
func TestApart(t *testing.T) {
	type span struct{ lo, hi uintptr }
	var spans []span
	keep := []any{}
	add := func(p unsafe.Pointer, size uintptr) {
		spans = append(spans, span{uintptr(p), uintptr(p) + size})
	}
	for range 50 {
		f := Slice[float64](3)
		if len(f) != 3 || cap(f) != 3 {
			t.Fatalf("Slice: length %d, capacity %d, want 3", len(f), cap(f))
		}
		add(unsafe.Pointer(&f[0]), 3*8)
		b := Slice[[100]byte](2)
		add(unsafe.Pointer(&b[0]), 200)
		p := New[[2]int64]()
		add(unsafe.Pointer(p), 16)
		keep = append(keep, f, b, p)
	}
	slices.SortFunc(spans, func(a, b span) int { return int(a.lo - b.lo) })
	for i := 1; i < len(spans); i++ {
		if gap := int(spans[i].lo) - int(spans[i-1].hi); gap < 2*line {
			t.Fatalf("payloads %d and %d are %d bytes apart, want ≥ %d", i-1, i, gap, 2*line)
		}
	}
	_ = keep
}
