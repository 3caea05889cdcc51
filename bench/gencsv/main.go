// Command gencsv writes a synthetic logistic-regression data set as CSV on
// standard output, for timing `fresgld logistic` on large data without a
// large file in the repository: N rows of p standard normal features
// (columns x1..xp, four decimals) and a 0/1 label y drawn from the logistic
// model of models.SyntheticLogistic (the same θ* and stream for a seed).
//
//	go run ./bench/gencsv -n 1000000 -p 100 > big.csv
package main

import (
	"bufio"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strconv"

	"github.com/fresgld/fresgld/bench/internal/benchmain"
)

func main() {
	n := flag.Int("n", 1_000_000, "rows")
	p := flag.Int("p", 100, "features")
	seed := flag.Uint64("seed", 1, "random seed")
	flag.Parse()
	if *n < 1 || *p < 1 {
		fmt.Fprintln(os.Stderr, "gencsv: -n and -p must be positive")
		os.Exit(2)
	}
	w := bufio.NewWriterSize(os.Stdout, 1<<20)
	for j := 1; j <= *p; j++ {
		fmt.Fprintf(w, "x%d,", j)
	}
	w.WriteString("y\n")
	// As models.SyntheticLogistic draws them: θ*_j ~ N(0, 4/p), then per
	// row its features and its label.
	rng := rand.New(rand.NewPCG(*seed, 0))
	truth := make([]float64, *p)
	sd := 2 / math.Sqrt(float64(*p))
	for j := range truth {
		truth[j] = sd * rng.NormFloat64()
	}
	row := make([]float64, *p)
	var buf []byte
	for range *n {
		z := 0.0
		for j := range row {
			row[j] = rng.NormFloat64()
			z += row[j] * truth[j]
		}
		y := 0
		if rng.Float64() < 1/(1+math.Exp(-z)) {
			y = 1
		}
		buf = buf[:0]
		for _, v := range row {
			buf = strconv.AppendFloat(buf, v, 'f', 4, 64)
			buf = append(buf, ',')
		}
		buf = strconv.AppendInt(buf, int64(y), 10)
		buf = append(buf, '\n')
		_, err := w.Write(buf)
		benchmain.Check("gencsv", err)
	}
	benchmain.Check("gencsv", w.Flush())
}
