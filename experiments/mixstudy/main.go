// Command mixstudy is issue 53's study of fresgld mixture on one-column
// data the project had not tuned to (R's faithful$eruptions,
// MASS::geyser$duration, R's precip): a collapsed Gibbs reference for
// each, the default's runs and rstan's NUTS (nuts.sh) scored against it
// at the CPU seconds of whole processes. See docs/experiments/mixstudy.md,
// "Mixtures at the speed of their kernel".
//
//	go run ./experiments/mixstudy ref -data F -column C -out ref.json
//	go run ./experiments/mixstudy score -ref ref.json RUN...
package main

import (
	"flag"
	"fmt"
	"os"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: mixstudy ref|score …")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "ref":
		fs := flag.NewFlagSet("ref", flag.ExitOnError)
		data := fs.String("data", "", "CSV file")
		col := fs.String("column", "", "column")
		k := fs.Int("components", 4, "components K")
		e0 := fs.Float64("dirichlet", 1, "Dirichlet weight e0")
		chains := fs.Int("chains", 8, "chains (≥ 4)")
		sweeps := fs.Int("sweeps", 100_000, "sweeps a chain")
		seed := fs.Uint64("seed", 1, "seed")
		out := fs.String("out", "ref.json", "output")
		fs.Parse(os.Args[2:])
		err = runReference(*data, *col, *k, *e0, *chains, *sweeps, *seed, *out)
	case "score":
		err = score(os.Args[2:])
	default:
		err = fmt.Errorf("unknown subcommand %q", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "mixstudy:", err)
		os.Exit(1)
	}
}
