// Package pad allocates objects that a chain writes at every step alone on
// their cache lines. Chains stepping on different cores whose small,
// constantly written objects (generators, counters, scratch vectors) sat
// side by side in one cache line would slow each other down (false
// sharing): the line moves between the cores at every write.
package pad

import "unsafe"

// line is the span kept free on each side of an object: two 64-byte cache
// lines, as the adjacent-line prefetcher of x86 cores moves lines in pairs.
const line = 128

type padded[T any] struct {
	_ [line]byte
	V T
	_ [line]byte
}

// New returns a new zero T with line bytes unused on either side.
func New[T any]() *T { return &new(padded[T]).V }

// Slice returns a slice of n zero Ts, its length and capacity n, with at
// least line bytes unused on either side.
func Slice[T any](n int) []T {
	var z T
	k := 1
	if s := int(unsafe.Sizeof(z)); s > 0 {
		k = (line + s - 1) / s
	}
	b := make([]T, n+2*k)
	return b[k : k+n : k+n]
}
