package subsets

import (
	"fmt"
	"testing"
)

// The 2-subsets of [0, 4), in order: C(4, 2) = 6 of them.
func TestEach(t *testing.T) {
	var got []string
	Each(4, 2, func(idx []int32) { got = append(got, fmt.Sprint(idx)) })
	if want := "[[0 1] [0 2] [0 3] [1 2] [1 3] [2 3]]"; fmt.Sprint(got) != want {
		t.Errorf("Each(4, 2) = %v, want %v", got, want)
	}
}
