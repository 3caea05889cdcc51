package stan

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/fresgld/fresgld/modelproc"
)

// BenchmarkRequest is one gradient request to a compiled Stan model over
// the protocol (binary, a pipe), reported beside the model's own gradient
// time in its program (grad-ns/op, the floor): the difference is the
// bridge's cost a request.
func BenchmarkRequest(b *testing.B) {
	if _, err := FindToolchain(); err != nil {
		b.Skipf("no Stan toolchain: %v", err)
	}
	m, err := Open(context.Background(), filepath.Join("testdata", "normal.stan"), filepath.Join("testdata", "normal.json"), "", os.Stderr)
	if err != nil {
		b.Fatal(err)
	}
	mp, err := modelproc.Start(m.Command(), modelproc.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer mp.Close()
	benchGrad(b, m, mp.UGrad)
}

// benchGrad times ugrad, a gradient of m at (0.1, 0.1), beside m's own
// gradient time in its program (grad-ns/op).
func benchGrad(b *testing.B, m *Model, ugrad func(g, x []float64) float64) {
	own, err := m.GradTime(context.Background(), 100000)
	if err != nil {
		b.Fatal(err)
	}
	x, g := []float64{0.1, 0.1}, make([]float64, 2)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		ugrad(g, x)
	}
	b.ReportMetric(float64(own.Nanoseconds()), "grad-ns/op")
}
