package minibatch

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"strings"
	"time"

	"github.com/fresgld/fresgld/exchange"
	"github.com/fresgld/fresgld/output"
)

// RefFile is the name of the cached MALA reference in the tables' directory.
const RefFile = "breast-cancer-reference.json"

// ReferenceSource says where the breast-cancer reference comes from: the
// cached file Path, unless it is missing or Recompute is set, in which case
// a MALA run of Steps steps computes it and writes it to Dir/RefFile with
// Command recorded as the command that makes it.
type ReferenceSource struct {
	Path      string
	Recompute bool
	Steps     int
	Dir       string
	Command   string
}

// Load returns the reference, computing it when needed; it says what it does
// on log.
func (rs ReferenceSource) Load(log io.Writer) (Reference, error) {
	l, _, err := BreastCancer()
	if err != nil {
		return Reference{}, err
	}
	if !rs.Recompute {
		ref, err := LoadReference(rs.Path, l.Dim())
		if err == nil {
			return ref, nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return ref, err
		}
		fmt.Fprintf(log, "no cached reference at %s: computing it\n", rs.Path)
	}
	if rs.Steps < 1000 {
		return Reference{}, fmt.Errorf("reference steps = %d: need at least 1000", rs.Steps)
	}
	ref, err := ComputeReference("breast-cancer", l, 5000, rs.Steps, 10, 1)
	if err != nil {
		return ref, err
	}
	ref.Command = fmt.Sprintf("%s --reference-steps %d", rs.Command, rs.Steps)
	fmt.Fprintf(log, "MALA reference: %d steps, acceptance %.3f, min ESS %.0f, max se/sd of the means %.4f and of the sds %.4f, %.0fs\n",
		ref.Steps, ref.Accept, ref.MinESS, ref.MaxMeanSEOverSD, ref.MaxSDSEOverSD, ref.Wall)
	d, err := output.Prepare(rs.Dir)
	if err != nil {
		return ref, err
	}
	path := d.File(RefFile)
	fmt.Fprintf(log, "writing the MALA reference to %s\n", path)
	return ref, ref.Save(path)
}

// Outputs are the study's outputs under correction c, tables and figures,
// removed before a run so that a failed run never leaves an earlier run's
// beside its own. The full correction's carry a suffix, so that they never
// replace the study's.
func Outputs(c exchange.Correction) (results, figures []string) {
	s := suffix(c)
	results = []string{"welling-teh" + s + ".md", "breast-cancer" + s + ".md", "summary" + s + ".json"}
	for _, f := range []string{"welling-teh" + s + "-TV", "breast-cancer" + s + "-mean-error", "breast-cancer" + s + "-sd-error"} {
		figures = append(figures, "minibatch-"+f+".png", "minibatch-"+f+".svg")
	}
	return results, figures
}

func suffix(c exchange.Correction) string {
	if c == exchange.Diagonal {
		return ""
	}
	return "-" + c.String()
}

// ReproduceOptions are the settings of a run of the study.
type ReproduceOptions struct {
	Problems         []string // welling-teh, breast-cancer
	Size             Size
	Correction       exchange.Correction
	Seeds, Workers   int
	Results, Figures string // directories of the tables and the figures
	Reference        ReferenceSource
	// Progress makes a progress callback for a problem's runs.
	Progress func(label string, total int) func(done, total int)
	Out, Log io.Writer // the tables; what the run is doing
}

// Reproduce runs the study on each problem and writes its Markdown table,
// its figures and, for all problems, summary.json (names suffixed under the
// full correction).
func Reproduce(o ReproduceOptions) error {
	sfx := suffix(o.Correction)
	var sums []Summary
	for _, name := range o.Problems {
		var pr Problem
		var err error
		switch name {
		case "welling-teh":
			pr, err = WellingTehProblem(o.Size)
		case "breast-cancer":
			var ref Reference
			if ref, err = o.Reference.Load(o.Log); err == nil {
				pr, err = BreastCancerProblem(ref, o.Size)
			}
		default:
			return fmt.Errorf("unknown problem %q (want welling-teh or breast-cancer)", name)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		pr.Setting.Correction = o.Correction
		start := time.Now()
		sum, err := Study(pr, Methods, o.Seeds, o.Workers, o.Progress(pr.Name, o.Seeds*len(Methods)))
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		fmt.Fprintf(o.Log, "%s: %d runs in %.1fs\n", pr.Name, o.Seeds*len(Methods), time.Since(start).Seconds())
		var b strings.Builder
		sum.Markdown(&b)
		fmt.Fprint(o.Out, b.String())
		if err := output.WriteBytes(filepath.Join(o.Results, pr.Name+sfx+".md"), []byte(b.String())); err != nil {
			return err
		}
		for k, m := range pr.Metrics {
			base := filepath.Join(o.Figures, "minibatch-"+pr.Name+sfx+"-"+strings.ReplaceAll(m, " ", "-"))
			if err := sum.Plot(k, base); err != nil {
				return err
			}
		}
		sums = append(sums, sum)
	}
	js, err := json.MarshalIndent(sums, "", "  ")
	if err != nil {
		return err
	}
	return output.WriteBytes(filepath.Join(o.Results, "summary"+sfx+".json"), append(js, '\n'))
}
