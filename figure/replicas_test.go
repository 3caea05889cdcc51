package figure

import (
	"strings"
	"testing"
)

// Every record must place each replica at exactly one level: a record that
// is not a permutation would draw a replica at a level it never held (or
// index past the replicas), so it is an error naming the record.
func TestReplicaTraceRefusesNonPermutations(t *testing.T) {
	steps := []int{0, 10}
	if _, err := ReplicaTrace("ok", steps, [][]int{{0, 1, 2}, {1, 0, 2}}); err != nil {
		t.Fatalf("a valid trace: %v", err)
	}
	for _, c := range []struct {
		name string
		at   [][]int
		want string
	}{
		{"repeated replica", [][]int{{0, 1, 2}, {1, 1, 2}}, "record 1"},
		{"replica out of range", [][]int{{0, 1, 3}, {1, 0, 2}}, "record 0"},
		{"negative replica", [][]int{{0, 1, 2}, {-1, 0, 2}}, "record 1"},
		{"short record", [][]int{{0, 1, 2}, {1, 0}}, "record 1 has 2 levels"},
	} {
		if _, err := ReplicaTrace(c.name, steps, c.at); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one naming %q", c.name, err, c.want)
		}
	}
	if _, err := ReplicaTrace("mismatch", []int{0}, [][]int{{0, 1}, {1, 0}}); err == nil {
		t.Error("records and steps of different lengths accepted")
	}
}
