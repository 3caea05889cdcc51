package models_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/fresgld/fresgld/energy"
	"github.com/fresgld/fresgld/internal/cputime"
)

// BenchmarkGradFloor compares one minibatch gradient draw (N = 10⁵, n = 100)
// with the floor of a gather-then-vector-kernel gradient, in one run:
//
//   - kernel=floor: n indices drawn with replacement (cheaper than the
//     minibatch's draw without), the n rows copied into one n×p buffer,
//     z = X_b θ and ∇ = X_bᵀ(σ(z) − y) by gonum's blas64.Gemv (its
//     assembly dot and axpy kernels), then the prior and the N/n scale.
//     No variance, no energy.
//   - kernel=grad+var: Minibatch.Grad with its per-coordinate variance
//     report (the sums of squares of the per-example gradients).
//   - kernel=grad: Minibatch.Grad without variances (plain SGLD).
//   - kernel=per-term+var: Minibatch.Grad with variances on the same model
//     with LinearTerms hidden (Touch kept): one Term call per example, the
//     path every Terms takes and the one a Logistic took before.
//
// x-floor is a kernel's CPU time over the floor's, each timed in its own
// sub-benchmark of the same run; compare them with benchstat -col /kernel.
func BenchmarkGradFloor(b *testing.B) {
	const N, n = 100_000, 100
	for _, p := range []int{10, 100} {
		for _, kernel := range []string{"floor", "grad+var", "grad", "per-term+var"} {
			b.Run(fmt.Sprintf("p=%d/kernel=%s", p, kernel), func(b *testing.B) {
				l := synthetic(b, N, p)
				rng := rand.New(rand.NewPCG(1, 2))
				theta, grad, gv := make([]float64, p), make([]float64, p), make([]float64, p)
				for j := range theta {
					theta[j] = 0.1 * rng.NormFloat64()
				}
				var step func()
				switch kernel {
				case "floor":
					xb := make([]float64, n*p)
					z := make([]float64, n)
					X := blas64.General{Rows: n, Cols: p, Stride: p, Data: xb}
					th := blas64.Vector{N: p, Inc: 1, Data: theta}
					zv := blas64.Vector{N: n, Inc: 1, Data: z}
					gv := blas64.Vector{N: p, Inc: 1, Data: grad}
					y := make([]float64, n)
					step = func() {
						for k := range n {
							i := rng.IntN(N)
							copy(xb[k*p:(k+1)*p], l.X[i*p:(i+1)*p])
							y[k] = l.Y[i]
						}
						blas64.Gemv(blas.NoTrans, 1, X, th, 0, zv)
						for k, v := range z {
							e := math.Exp(-math.Abs(v))
							s := 1 / (1 + e)
							if v < 0 {
								s = e / (1 + e)
							}
							z[k] = s - y[k]
						}
						blas64.Gemv(blas.Trans, float64(N)/n, X, zv, 0, gv)
						w := 1 / (l.Sigma0 * l.Sigma0)
						for j, t := range theta {
							grad[j] += w * t
						}
					}
				case "grad+var", "grad", "per-term+var":
					var t energy.Terms = l
					if kernel == "per-term+var" {
						t = touched{untouched{l}}
					}
					mb, err := energy.NewMinibatch(t, n)
					if err != nil {
						b.Fatal(err)
					}
					if kernel == "grad" {
						gv = nil
					}
					step = func() { mb.Grad(grad, gv, theta, rng) }
				}
				b.ReportAllocs()
				defer cputime.Lock()()
				c0 := cputime.Thread()
				for b.Loop() {
					step()
				}
				reportCPU(b, c0, n*p)
			})
		}
	}
}

// touched hides Logistic's LinearTerms but keeps its Touch.
type touched struct{ untouched }

func (t touched) Touch(idx []int32) float64 { return t.l.Touch(idx) }
