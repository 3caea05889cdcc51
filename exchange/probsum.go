package exchange

import "math"

// probBatch is the number of acceptance probabilities a pair holds before
// adding them to PairStats.ProbSum.
const probBatch = 16

// probs holds one pair's log Ŝ values not yet added to its ProbSum. On
// amd64 math.Exp is a chain of about thirty dependent operations, about
// five times as long from argument to result as its cost when independent
// of other exponentials (BenchmarkExp), which a one-dimensional step would
// wait for at every attempt. Taken in batches the exponentials overlap.
// They are added in the order of the attempts, so the sum has the same
// bits as adding each at once (TestProbSumBits).
type probs struct {
	lr [probBatch]float64
	n  int
}

// add records the log-ratio of one attempt, folding a full batch into *sum.
func (b *probs) add(lr float64, sum *float64) {
	b.lr[b.n] = lr
	b.n++
	if b.n == probBatch {
		b.fold(sum)
	}
}

// fold adds exp(min(log Ŝ, 0)) of every held attempt to *sum, in order.
// exp(0) is exactly 1, and a NaN log Ŝ makes the sum NaN.
func (b *probs) fold(sum *float64) {
	s := *sum
	for _, lr := range b.lr[:b.n] {
		s += math.Exp(min(lr, 0))
	}
	*sum, b.n = s, 0
}
