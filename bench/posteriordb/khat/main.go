// Command khat prints, for each posteriordb reference posterior, the largest
// Pareto k̂ (diag.KHat) of its parameters, and every parameter past the
// verdict's report.KHatMax:
//
//	go run ./bench/posteriordb/khat PDB/posterior_database/reference_posteriors/draws/draws/*.zip
//
// (bench/posteriordb/extract.sh makes PDB.)
package main

import (
	"archive/zip"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/fresgld/fresgld/diag"
	"github.com/fresgld/fresgld/report"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: khat REFERENCE.json.zip ...")
		os.Exit(2)
	}
	for _, f := range os.Args[1:] {
		if err := one(f); err != nil {
			fmt.Fprintf(os.Stderr, "khat: %s: %v\n", f, err)
			os.Exit(1)
		}
	}
}

// one reads a reference's draws (a zipped JSON array of chains, each an
// object of parameter name to draws) and prints its line.
func one(path string) error {
	z, err := zip.OpenReader(path)
	if err != nil {
		return err
	}
	defer z.Close()
	if len(z.File) != 1 {
		return fmt.Errorf("%d files in the archive, want 1", len(z.File))
	}
	r, err := z.File[0].Open()
	if err != nil {
		return err
	}
	defer r.Close()
	var chains []map[string][]float64
	if err := json.NewDecoder(r).Decode(&chains); err != nil {
		return err
	}
	if len(chains) == 0 {
		return fmt.Errorf("no chains")
	}
	var names []string
	for n := range chains[0] {
		names = append(names, n)
	}
	slices.Sort(names)
	worst, worstName, draws := 0.0, "", 0
	var heavy []string
	for _, n := range names {
		ch := make([][]float64, len(chains))
		for c := range chains {
			ch[c] = chains[c][n]
		}
		draws = len(chains) * len(ch[0])
		k := diag.KHat(ch)
		if worstName == "" || k > worst {
			worst, worstName = k, n
		}
		if k > report.KHatMax {
			heavy = append(heavy, fmt.Sprintf("%s %.2f", n, k))
		}
	}
	fmt.Printf("%-48s %6d draws  largest k̂ %6.3f (%s)  above %g: %s\n", strings.TrimSuffix(filepath.Base(path), ".json.zip"),
		draws, worst, worstName, report.KHatMax, strings.Join(heavy, ", "))
	return nil
}
