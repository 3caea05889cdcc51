// Command readcsv times dataset.ReadFile, the read of `fresgld logistic`,
// on a real file: wall time and the CPU time of the whole process (the
// collector's threads included), each as MB/s of the file's size.
//
//	go run ./bench/readcsv -label y big.csv
package main

import (
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/fresgld/fresgld/bench/internal/benchmain"
	"github.com/fresgld/fresgld/dataset"
	"github.com/fresgld/fresgld/internal/cputime"
)

func main() {
	label := flag.String("label", "y", "label column")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: readcsv [-label NAME] FILE.csv")
		os.Exit(2)
	}
	path := flag.Arg(0)
	st, err := os.Stat(path)
	benchmain.Check("readcsv", err)
	c0, t0 := cputime.Process(), time.Now()
	d, err := dataset.ReadFile(path, dataset.Options{Label: *label})
	benchmain.Check("readcsv", err)
	cpu, wall := cputime.Process()-c0, time.Since(t0)
	mb := float64(st.Size()) / 1e6
	fmt.Printf("%s: %.0f MB, %d rows × %d features: wall %.2f s (%.1f MB/s), process CPU %.2f s (%.1f MB/s)\n",
		path, mb, d.N, d.P, wall.Seconds(), mb/wall.Seconds(), cpu.Seconds(), mb/cpu.Seconds())
}
