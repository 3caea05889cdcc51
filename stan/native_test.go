package stan

import (
	"math"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

func loadTest(t testing.TB) (*Model, *Native) {
	t.Helper()
	if !canLoad {
		t.Skip("built without cgo: models are not loaded in process")
	}
	m := openTest(t, "normal.stan", filepath.Join("testdata", "normal.json"))
	n, err := m.Load(7)
	if err != nil {
		t.Fatal(err)
	}
	return m, n
}

// The model loaded in process answers what its program answers over the
// protocol (TestNormalModel: the closed form), from many goroutines at
// once, each on an autodiff tape of its own thread: a shared tape would mix
// their gradients.
func TestNativeModel(t *testing.T) {
	m, n := loadTest(t)
	defer n.Close()
	if n.Dim() != 2 || n.Len() != 1 {
		t.Fatalf("dimension %d, %d examples", n.Dim(), n.Len())
	}
	var wg sync.WaitGroup
	errs := make(chan string, 64)
	for k := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			g := make([]float64, 2)
			for i := range 2000 {
				th := []float64{float64(k) - 3 + float64(i)*1e-3, 0.5 - float64(k)/8}
				u := n.UGrad(g, th)
				if want := normalU(th); math.Abs(u-want) > 1e-12*math.Max(1, math.Abs(want)) {
					errs <- "U mismatch"
					return
				}
				const h = 1e-5
				a, b := []float64{th[0] + h, th[1]}, []float64{th[0] - h, th[1]}
				if fd := (normalU(a) - normalU(b)) / (2 * h); math.Abs(g[0]-fd) > 1e-6*math.Max(1, math.Abs(fd)) {
					errs <- "gradient mismatch"
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	g := []float64{1, 1}
	if u := n.UGrad(g, []float64{60, 0}); !math.IsInf(u, 1) || g[0] != 0 || g[1] != 0 {
		t.Errorf("beyond the model's reject(): U = %v, ∇U = %v, want +Inf and 0", u, g)
	}
	if k, msg := n.Rejected(); k != 1 || !strings.Contains(msg, "beyond 50") {
		t.Errorf("rejected %d, message %q", k, msg)
	}
	if n.Err() != nil {
		t.Error(n.Err())
	}
	// Stan's draws, as the program writes them.
	out, want := make([]float64, 4), make([]float64, 4)
	n.Write(out, []float64{0.5, math.Log(2)})
	w, err := m.NewWriter(7)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	w.Write(want, []float64{0.5, math.Log(2)})
	for j := range out {
		if out[j] != want[j] {
			t.Errorf("%s: in process %v, the program %v", m.Constrained[j], out[j], want[j])
		}
	}
	if k, _ := n.WriteFailures(); k != 0 {
		t.Errorf("%d write failures", k)
	}
}

// BenchmarkNative is one gradient of the model loaded in process, beside
// the model's own gradient time in its program (grad-ns/op): the
// difference is the cost of the call.
func BenchmarkNative(b *testing.B) {
	m, n := loadTest(b)
	defer n.Close()
	benchGrad(b, m, n.UGrad)
}
