package analysis

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fresgld/fresgld/results"
)

// A merge warns of a chain apart as the run of all its chains would: the
// third task's chain, whose every draw of a lies far beyond the others'.
func TestMergeWarnsOfAChainApart(t *testing.T) {
	dir := t.TempDir()
	var files []string
	for id := 1; id <= 3; id++ {
		var b strings.Builder
		b.WriteString(strings.Join(results.ChainHeader{Command: "sample", ID: id, Keep: 50, Thin: 1, Seed: 1}.Lines(), "\n") + "\nlp__,a\n")
		for i := range 50 {
			a := float64(i%7) - 3
			if id == 3 {
				a += 100
			}
			fmt.Fprintf(&b, "%g,%g\n", -a*a/2, a)
		}
		f := filepath.Join(dir, results.ChainName(id))
		if err := os.WriteFile(f, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	res, _, err := Merge(files)
	if err != nil {
		t.Fatal(err)
	}
	var apart []results.Warning
	for _, w := range res.Warnings {
		if w.Code == "chain-apart" {
			apart = append(apart, w)
		}
	}
	if len(apart) != 1 || apart[0].Chain != 3 {
		t.Errorf("warnings %v: want chain 3 apart", res.Warnings)
	}
}
