package models_test

import (
	"testing"

	"github.com/fresgld/fresgld/energy"
	"github.com/fresgld/fresgld/exchange"
	"github.com/fresgld/fresgld/langevin"
)

// BenchmarkSGLDLogistic times one step of single-chain SGLD on minibatch
// logistic regression, N = 10⁵, p = 100, n = 100 (the library's path: an
// exchange sampler of one level on a energy.Minibatch): the peer of the
// plain PyTorch loop of bench/torch/sgld.py, which `go run ./bench/torch`
// times against it.
func BenchmarkSGLDLogistic(b *testing.B) {
	const N, p, n = 100_000, 100, 100
	l := synthetic(b, N, p)
	mb, err := energy.NewMinibatch(l, n)
	if err != nil {
		b.Fatal(err)
	}
	cfg, err := exchange.SGLDMethod.Config(exchange.Setup{Tau1: 1, Tau2: 2, Eta: langevin.Constant{Step: 1e-7}, Cold: mb, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	s, err := exchange.New(cfg, [][]float64{make([]float64, p)})
	if err != nil {
		b.Fatal(err)
	}
	benchSteps(b, s, n*p)
}
