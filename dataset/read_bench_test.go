package dataset

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/fresgld/fresgld/internal/cputime"
)

// BenchmarkRead times ReadFile, the path of `fresgld logistic`, on a CSV
// file of 20,000 rows of 100 features with four decimals and a 0/1 label
// (the layout of bench/gencsv, 15 MB), standardisation included; MB/s is
// the speed of reading by wall time, cpu-MB/s by the CPU time of the
// reading thread.
func BenchmarkRead(b *testing.B) {
	const n, p = 20_000, 100
	rng := rand.New(rand.NewPCG(1, 1))
	var buf []byte
	for j := 1; j <= p; j++ {
		buf = fmt.Appendf(buf, "x%d,", j)
	}
	buf = append(buf, "y\n"...)
	for range n {
		for range p {
			buf = strconv.AppendFloat(buf, rng.NormFloat64(), 'f', 4, 64)
			buf = append(buf, ',')
		}
		buf = strconv.AppendInt(buf, int64(rng.IntN(2)), 10)
		buf = append(buf, '\n')
	}
	path := filepath.Join(b.TempDir(), "bench.csv")
	if err := os.WriteFile(path, buf, 0o644); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(buf)))
	b.ReportAllocs()
	defer cputime.Lock()()
	c0 := cputime.Thread()
	for b.Loop() {
		if _, err := ReadFile(path, Options{Label: "y"}); err != nil {
			b.Fatal(err)
		}
	}
	// The CPU time of this thread, which time spent descheduled on a
	// loaded machine does not inflate (the reader runs on this thread).
	if cpu := cputime.Thread() - c0; cpu > 0 {
		b.ReportMetric(float64(len(buf))*float64(b.N)/cpu.Seconds()/1e6, "cpu-MB/s")
	}
}
