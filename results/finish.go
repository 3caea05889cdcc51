package results

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"

	"github.com/fresgld/fresgld/figure"
	"github.com/fresgld/fresgld/output"
	"github.com/fresgld/fresgld/report"
)

// Report prints summary s of the chains (the table on stdout, the
// warnings on stderr), writes the summary files into dir and says what it
// wrote. summary.json holds full (nil: s). It returns writeErr, the files'
// errors and the chains' stops.
func Report(stdout, stderr io.Writer, dir *output.Dir, chains []*Chain, s *Summary, full any, writeErr error) error {
	WriteTable(stdout, *s)
	for _, w := range s.Warnings {
		fmt.Fprintln(stderr, "warning:", w)
	}
	if n := s.Draws * len(s.Parameters) * len(s.Chains); n > bigOutput {
		// Drawing takes seconds at this size: say what is happening.
		fmt.Fprintf(stderr, "writing the figures (%d chains × %d draws of %d variables)…\n", len(s.Chains), s.Draws, len(s.Parameters))
	}
	note, err := WriteSummary(dir, chains, *s, full)
	if note != "" {
		fmt.Fprintln(stdout, "figures:", note)
	}
	fmt.Fprintln(stdout, dir.Wrote())
	return errors.Join(writeErr, err, StoppedError(*s, len(chains), dir))
}

// WriteSummary writes summary.txt (the table), the figures,
// summary.json (full, or s when full is nil) and report.html into dir, and
// returns the figures' note.
func WriteSummary(dir *output.Dir, chains []*Chain, s Summary, full any) (string, error) {
	if full == nil {
		full = s
	}
	var tbl bytes.Buffer
	WriteTable(&tbl, s)
	errs := []error{dir.WriteFile("summary.txt", func(w io.Writer) error { _, err := w.Write(tbl.Bytes()); return err })}
	var note string
	if s.Draws > 0 {
		var err error
		note, err = chainFigures(dir, chains, s)
		errs = append(errs, err)
	}
	errs = append(errs, dir.WriteFile("summary.json", func(w io.Writer) error { return encodeJSON(w, full) }))
	// report.html is drawn from the files just written, so it comes last.
	if err := report.WriteDir(dir.Path()); err != nil {
		errs = append(errs, err)
	} else {
		dir.Record(report.FileName)
	}
	return note, errors.Join(errs...)
}

// bigOutput is the number of drawn values above which finishChains says it
// is writing the figures.
const bigOutput = 1_000_000

// panelHeight is the height of a chain figure's panel.
const panelHeight = 6.5 * vg.Centimeter

// unitOf is the unit of variable name's values, for the axes.
func unitOf(s Summary, name string) string {
	switch {
	case name == "lp__":
		return "log density, nats"
	case generated(s.Command, name):
		return "probability"
	case s.Command == "regress":
		return "response sds per feature sd"
	case s.Scale != "":
		return "log-odds per feature sd"
	}
	return ""
}

// figurePanels is the most variables a chain figure shows.
const figurePanels = 12

// chainFigures draws trace, rank, marginal and replica figures of the
// chains the summary pools. With more than figurePanels variables it shows
// those with the largest R̂ and says so in the returned note.
func chainFigures(dir *output.Dir, chains []*Chain, s Summary) (note string, err error) {
	// The figures show the chains and draws the diagnostics use: rank
	// plots compare chains of equal length.
	var used []*Chain
	for _, c := range chains {
		if slices.Contains(s.DiagChains, c.Header.ID) {
			used = append(used, c)
		}
	}
	c0 := used[0]
	col := map[string]int{}
	for j, n := range c0.Columns {
		col[n] = j
	}
	// A constant (an inclusion probability of 1 in every draw) has no
	// trace, ranks or density to show: it is in the table.
	var rows []ParamRow
	constants := 0
	for _, r := range s.Parameters {
		if r.SD == 0 {
			constants++
			continue
		}
		rows = append(rows, r)
	}
	if len(rows) > figurePanels {
		// Largest R̂ first, NaN (undefined R̂) before any number.
		slices.SortStableFunc(rows, func(a, b ParamRow) int {
			switch {
			case math.IsNaN(a.Rhat) && !math.IsNaN(b.Rhat):
				return -1
			case math.IsNaN(b.Rhat) && !math.IsNaN(a.Rhat):
				return 1
			case a.Rhat > b.Rhat:
				return -1
			case a.Rhat < b.Rhat:
				return 1
			}
			return 0
		})
		rows = rows[:figurePanels]
		note = fmt.Sprintf("the %d of %d variables with the largest R̂", figurePanels, len(s.Parameters))
	}
	if constants > 0 {
		if note != "" {
			note += "; "
		}
		note += fmt.Sprintf("%d constant variable(s) left out", constants)
	}
	var vars, ranked []figure.Variable
	for _, r := range rows {
		v := figure.Variable{Name: fmt.Sprintf("%s (rhat %.3f)", r.Name, r.Rhat), Unit: unitOf(s, r.Name), Exact: s.exact[r.Name]} // the fonts draw no combining hat
		for _, c := range used {
			v.Chains = append(v.Chains, c.Cols[col[r.Name]][:s.Draws])
		}
		vars = append(vars, v)
		// A generated quantity's ranks say nothing the parameters' do
		// not: it is a function of them, and a Rao–Blackwellised
		// probability piles its draws on ties near 0 and 1 that look
		// like chains that do not mix.
		if !generated(s.Command, r.Name) {
			ranked = append(ranked, v)
		}
	}
	if len(vars) == 0 {
		return note, nil
	}
	h := c0.Header
	first := h.Burn + h.Thin
	save := func(name string, ps []*plot.Plot, err error, cols int, pw vg.Length) error {
		if err != nil {
			return err
		}
		rows, w, h := figure.Grid(ps, cols, pw, panelHeight)
		if err := figure.SaveGrid(rows, w, h, dir.File(name)); err != nil {
			return err
		}
		dir.Record(name+".png", name+".svg")
		return nil
	}
	// Every figure ends with a key panel: which colour is which chain (or
	// level), and, when not every variable has a panel, which are shown.
	var chainLabels []string
	for _, c := range used {
		chainLabels = append(chainLabels, fmt.Sprintf("chain %d", c.Header.ID))
	}
	caption := fmt.Sprintf("%d chains × %d draws", len(used), s.Draws)
	if note != "" {
		// The figures' fonts draw no combining hat: R̂ would show as R'.
		caption += "; panels: " + strings.ReplaceAll(note, "R̂", "rhat") + " (all are in the table)"
	}
	keyed := func(ps []*plot.Plot, err error, labels []string, caption string) ([]*plot.Plot, error) {
		if err != nil {
			return nil, err
		}
		k, err := figure.Key(labels, caption)
		return append(ps, k), err
	}
	// Three panels across fill a report's page (72em, about 1150 px at
	// the PNG's 96 dpi) at their natural size.
	const cols, pw = 3, 10 * vg.Centimeter
	ps, err := figure.Traces(vars, first, h.Thin)
	ps, err = keyed(ps, err, chainLabels, "trace: "+caption)
	errs := []error{save("trace", ps, err, cols, pw)}
	if len(ranked) > 0 {
		ps, err = figure.Ranks(ranked)
		rc := "rank histograms (dashed: the count if the chains mixed): " + caption
		if len(ranked) < len(vars) {
			rc += "; generated quantities (functions of the parameters) have none"
		}
		ps, err = keyed(ps, err, chainLabels, rc)
		errs = append(errs, save("ranks", ps, err, cols, pw))
	}
	ps, err = figure.Marginals(vars)
	marginalLabels, mc := chainLabels, "marginal densities: "+caption
	if slices.ContainsFunc(vars, func(v figure.Variable) bool { return v.Exact != nil }) {
		marginalLabels = append(slices.Clone(chainLabels), figure.ExactLabel)
		mc += "; black: the exact density"
	}
	ps, err = keyed(ps, err, marginalLabels, mc)
	errs = append(errs, save("marginals", ps, err, cols, pw))
	K := len(s.Clamped)
	if K < 2 {
		// One level: no replica moves, and a figure of one flat line
		// would only look like a ladder that never swapped.
		return note, errors.Join(errs...)
	}
	var ids []int
	var levels [][][]float64
	for _, c := range used {
		var lv [][]float64
		for l := range K {
			lv = append(lv, c.Cols[col[ReplicaCol(l+1)]][:s.Draws])
		}
		ids, levels = append(ids, c.Header.ID), append(levels, lv)
	}
	var levelLabels []string
	for l := range K {
		levelLabels = append(levelLabels, fmt.Sprintf("level %d", l+1))
	}
	ps, err = figure.Replicas(ids, levels, first, h.Thin)
	ps, err = keyed(ps, err, levelLabels, "which replica sits at each level (level 1 the coldest; crossing lines are swaps)")
	errs = append(errs, save("replicas", ps, err, 2, 15*vg.Centimeter))
	return note, errors.Join(errs...)
}

// StoppedError reports the chains that stopped early; their draws are kept,
// but for those a failed write (a full disk) kept from the file in dir.
func StoppedError(s Summary, n int, dir *output.Dir) error {
	var errs []error
	// "chain c of n" where the run is the n chains numbered from 1; a run
	// of one chain of a larger one (--chain 2) said "chain 2 of 1".
	of := func(c int) string {
		if n <= 1 || c > n {
			return fmt.Sprintf("chain %d", c)
		}
		return fmt.Sprintf("chain %d of %d", c, n)
	}
	for _, c := range s.PerChain {
		switch c.Status {
		case StatusInterrupted:
			errs = append(errs, fmt.Errorf("%s interrupted after %d steps: its %d draws are kept, and the summary says so", of(c.Chain), c.Steps, c.Draws))
		case StatusNeverStarted:
			errs = append(errs, fmt.Errorf("%s never started: interrupted before its first step", of(c.Chain)))
		case StatusKilled:
			errs = append(errs, fmt.Errorf("%s was killed after %d draws: its draws are kept, its counters were lost", of(c.Chain), c.Draws))
		case StatusStopped:
			for _, st := range s.Stopped {
				if st.Chain != c.Chain {
					continue
				}
				kept := c.Draws
				if dir != nil {
					kept = drawsOnDisk(dir.File(ChainName(c.Chain)))
				}
				if kept < c.Draws {
					errs = append(errs, fmt.Errorf("%s stopped after %d steps, and %s holds only %d of its %d draws: %s: free space on the disk of --out (or give another --out) and run again", of(c.Chain), c.Steps, ChainName(c.Chain), kept, c.Draws, st.Error))
					continue
				}
				errs = append(errs, fmt.Errorf("%s stopped after %d steps (its draws are kept): %s", of(c.Chain), c.Steps, st.Error))
			}
		}
	}
	return errors.Join(errs...)
}

// encodeJSON writes v to w as indented JSON.
func encodeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// CoordNames returns theta1, theta2, ... for p coordinates.
func CoordNames(p int) []string {
	n := make([]string, p)
	for j := range n {
		n[j] = "theta" + strconv.Itoa(j+1)
	}
	return n
}

// drawsOnDisk counts the draws in a chain file: its whole lines that are
// neither comments nor the header row.
func drawsOnDisk(path string) int {
	b, _ := os.ReadFile(path)
	n, header := 0, false
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			break
		}
		switch {
		case b[0] == '#':
		case !header:
			header = true
		default:
			n++
		}
		b = b[i+1:]
	}
	return n
}
