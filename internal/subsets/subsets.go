// Package subsets enumerates the n-subsets of [0, N): the minibatches a
// test averages over, every one, to check an estimator's mean and
// variance exactly.
package subsets

// Each calls f with every n-subset of [0, N), in lexicographic order,
// its indices increasing. f's slice is reused from call to call.
func Each[I int | int32](N, n int, f func(idx []I)) {
	idx := make([]I, n)
	for k := range idx {
		idx[k] = I(k)
	}
	for {
		f(idx)
		k := n - 1
		for k >= 0 && int(idx[k]) == N-n+k {
			k--
		}
		if k < 0 {
			return
		}
		idx[k]++
		for j := k + 1; j < n; j++ {
			idx[j] = idx[j-1] + 1
		}
	}
}
