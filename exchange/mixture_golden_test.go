package exchange

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math"
	"testing"

	"github.com/fresgld/fresgld/langevin"
	"github.com/fresgld/fresgld/models"
)

// paperReSGLD is the reSGLD run of `fresgld gmm --method resgld` with its
// defaults: the paper's mixture and fixed noise, τ = 1 and 10, η = 0.03, a
// swap attempted every step, seed 1.
func paperReSGLD(tb testing.TB) *Sampler {
	cold, hot := models.PaperFixedNoise(models.PaperMixture())
	cfg, err := ReSGLDMethod.Config(Setup{Tau1: 1, Tau2: 10, Eta: langevin.Constant{Step: 0.03}, Cold: cold, Hot: hot, PerStep: true, Seed: 1})
	if err != nil {
		tb.Fatal(err)
	}
	s, err := New(cfg, [][]float64{{0}, {0}})
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

// TestPaperReSGLDStream pins the exact output of the paper's mixture
// workload: a SHA-256 of every state of both levels after every one of
// 10⁵ steps (float64 bits) and of the swap count. The expected hash was
// printed by this test on the code before the mixture's constants were
// precomputed, so any change to the arithmetic of the energy, the sampler
// or the random stream that alters a single bit fails here.
func TestPaperReSGLDStream(t *testing.T) {
	s := paperReSGLD(t)
	defer s.Close()
	h := sha256.New()
	var b [8]byte
	for range 100_000 {
		if err := s.Step(); err != nil {
			t.Fatal(err)
		}
		for l := range 2 {
			binary.LittleEndian.PutUint64(b[:], math.Float64bits(s.State(l)[0]))
			h.Write(b[:])
		}
	}
	st := s.Stats()
	fmt.Fprintf(h, "%d/%d", st.Pairs[0].Accepts, st.Pairs[0].Attempts)
	const want = "0f02520d66b920bcffdbecb6aea975b277fca8d6ac35a0d3da2399f6ee1f3774"
	if got := fmt.Sprintf("%x", h.Sum(nil)); got != want {
		t.Errorf("hash of the reSGLD run on the paper's mixture %s, want %s (computed before the speed-ups)", got, want)
	}
}
