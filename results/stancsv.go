package results

import (
	"bufio"
	"cmp"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/fresgld/fresgld/exchange"
	"github.com/fresgld/fresgld/output"
)

// A chain's draws are written in CmdStan's CSV layout, so that rstan
// (read_stan_csv), cmdstanr, posterior, ArviZ and stansummary read them:
// comment lines carrying the settings, with num_samples, num_warmup, thin
// and id where those tools look for them; a header row starting with lp__;
// one draw per row; trailing comments with the chain's statistics and the
// elapsed time. A file killed before its trailing comments is still read
// (by merge, and by rstan, which warns that the elapsed time is missing);
// fresgld repair adds a trailing block saying what was lost.

// Sampler columns, after lp__. Names end in "__" as CmdStan's do.
const (
	ColSwaps   = "swaps__"   // swaps accepted on any pair since the previous draw
	ColClamped = "clamped__" // clamped steps of the coldest level since the previous draw
)

// ReplicaCol is the column holding the replica (numbered from 1) at level
// l (numbered from 1, the coldest).
func ReplicaCol(l int) string { return "replica_" + strconv.Itoa(l) + "__" }

// ChainHeader is what the comment lines before the header row say.
type ChainHeader struct {
	Command string // "logistic" or "gmm"
	// Algorithm names the sampler (empty: replica_exchange_langevin).
	Algorithm string
	ID        int         // chain id, from 1
	Seed      uint64      // the run's seed; the chain draws from exchange.ChainSeed(Seed, ID)
	Burn      int         // steps before the first retained draw
	Keep      int         // draws planned
	Thin      int         // steps between draws
	Settings  [][2]string // the command's settings, name and value
}

// Lines renders h as CmdStan-style comment lines.
func (h ChainHeader) Lines() []string {
	l := []string{
		"# model = fresgld " + h.Command,
		"# method = sample (Default)",
		"#   sample",
		"#     num_samples = " + strconv.Itoa(h.Keep*h.Thin),
		"#     num_warmup = " + strconv.Itoa(h.Burn),
		"#     save_warmup = 0",
		"#     thin = " + strconv.Itoa(h.Thin),
		"#     algorithm = " + cmp.Or(h.Algorithm, "replica_exchange_langevin"),
		"# id = " + strconv.Itoa(h.ID),
		"# random",
		"#   seed = " + strconv.FormatUint(h.Seed, 10),
		"# fresgld",
	}
	for _, s := range h.Settings {
		l = append(l, "#   "+s[0]+" = "+s[1])
	}
	return l
}

// ChainStats is what the trailing comment lines say about a chain.
type ChainStats struct {
	Steps   int
	Cost    float64 // per-example evaluations (estimator units), all levels
	Clamped []int64 // clamped steps per level
	// Accepted are the accepted proposals per level, −1 at a level that
	// is not Metropolis-adjusted (nil: none is).
	Accepted []int64
	// Jumps and JumpsAccepted are the jumps between the modes per level
	// (exchange.Jumps; also counted in Accepted), −1 at a level that does
	// not jump (nil: none does).
	Jumps, JumpsAccepted []int64
	Attempts             []int // swap attempts per pair of adjacent levels
	Accepts              []int
	Stopped              string // the error that stopped the chain, if any
	// Frozen says what adaptation settled on at the end of burn-in
	// (frozenNote), empty when nothing adapted.
	Frozen string
	// Torn marks a file that ends without statistics (kill -9, a power
	// cut): Steps is then the last draw's step and every other count is
	// unknown.
	Torn   bool
	Warmup time.Duration // wall time of the burn-in
	Wall   time.Duration // wall time of the whole chain
}

const (
	StatSteps    = "#   steps: "
	statCost     = "#   cost: "
	statClamped  = "#   clamped steps at level "
	statAccepted = "#   accepted proposals at level "
	statJumps    = "#   jumps between the modes at level "
	statSwaps    = "#   swaps between levels "
	statFrozen   = "#   frozen after step "
	StatStopped  = "#   stopped: "
	StatKilled   = "#   killed: "
	StatsHeading = "# fresgld statistics"
)

// TornNote is the Stopped text of a chain whose file ends without
// statistics.
const TornNote = "the process was killed before the chain finished its file; steps are counted to its last draw, the other counts are lost"

func (st ChainStats) Lines() []string {
	if st.Torn {
		// What fresgld repair writes: only what the draws tell.
		return []string{"# ", StatsHeading, StatSteps + strconv.Itoa(st.Steps), StatKilled + st.Stopped, "# "}
	}
	l := []string{"# ", StatsHeading, StatSteps + strconv.Itoa(st.Steps), statCost + strconv.FormatFloat(st.Cost, 'g', -1, 64)}
	for i, c := range st.Clamped {
		l = append(l, fmt.Sprintf("%s%d: %d", statClamped, i+1, c))
	}
	for i, a := range st.Accepted {
		if a >= 0 {
			l = append(l, fmt.Sprintf("%s%d: %d", statAccepted, i+1, a))
		}
	}
	for i, n := range st.Jumps {
		if n >= 0 {
			l = append(l, fmt.Sprintf("%s%d: %d accepted of %d", statJumps, i+1, st.JumpsAccepted[i], n))
		}
	}
	for i := range st.Attempts {
		l = append(l, fmt.Sprintf("%s%d and %d: %d accepted of %d", statSwaps, i+1, i+2, st.Accepts[i], st.Attempts[i]))
	}
	if st.Frozen != "" {
		l = append(l, statFrozen+st.Frozen)
	}
	if st.Stopped != "" {
		l = append(l, StatStopped+strings.ReplaceAll(st.Stopped, "\n", " "))
	}
	sec := func(d time.Duration) string { return strconv.FormatFloat(d.Seconds(), 'f', 3, 64) }
	return append(l, "# ",
		"#  Elapsed Time: "+sec(st.Warmup)+" seconds (Warm-up)",
		"#                "+sec(st.Wall-st.Warmup)+" seconds (Sampling)",
		"#                "+sec(st.Wall)+" seconds (Total)",
		"# ")
}

// maxAnchorCoords is the largest dimension whose anchors frozenNote
// writes out.
const maxAnchorCoords = 10

// FrozenNote says what the sampler's adaptation settled on at the end of
// burn-in, for the line after statFrozen: the step, each level's minibatch
// and swap-energy sizes, and each replica's swap anchor (its coordinates up
// to maxAnchorCoords of them).
func FrozenNote(f *exchange.Frozen) string {
	if f == nil {
		return ""
	}
	ints := func(xs []int) string {
		var b []string
		for _, x := range xs {
			b = append(b, strconv.Itoa(x))
		}
		return strings.Join(b, ", ")
	}
	s := fmt.Sprintf("%d: minibatch sizes by level %s; swap-energy sizes %s", f.Step, ints(f.Batch), ints(f.EnergySize))
	if len(f.Anchors) > 0 {
		// The last refresh (in New for step 0) put each anchor there.
		s += fmt.Sprintf("; swap anchors at each replica's state at step %d", f.Step)
	}
	for r, a := range f.Anchors {
		if len(a) > maxAnchorCoords {
			break // a line per run, not per coordinate
		}
		var b []string
		for _, x := range a {
			b = append(b, strconv.FormatFloat(x, 'g', 6, 64))
		}
		s += fmt.Sprintf("; anchor of replica %d at (%s)", r+1, strings.Join(b, ", "))
	}
	return s
}

// StanWriter streams one chain's CSV through an output.Stream, which hands
// whole lines to the file at least once a second: a killed run leaves a
// file that parses, holding all but the last second's draws (and no
// trailing statistics, which merge reports).
type StanWriter struct {
	name string
	s    *output.Stream
	err  error
}

// AppendStanCSV is the writer of chain CSV name continued on s, a stream
// opened where its checkpoint left it (a resumed chain).
func AppendStanCSV(name string, s *output.Stream) *StanWriter { return &StanWriter{name: name, s: s} }

// Sync flushes the draws written so far to the file and returns its length
// (a checkpoint's offset).
func (w *StanWriter) Sync() (int64, error) { return w.s.Sync() }

// Name is the chain CSV's name.
func (w *StanWriter) Name() string { return w.name }

// CreateStanCSV starts chain CSV name in dir: h's comment lines, then
// the columns' names.
func CreateStanCSV(dir *output.Dir, name string, h ChainHeader, columns []string) (*StanWriter, error) {
	s, err := dir.CreateStream(name, nil)
	if err != nil {
		return nil, err
	}
	w := &StanWriter{name: name, s: s}
	for _, l := range h.Lines() {
		w.comment(l)
	}
	if err := s.WriteRecord(columns); err != nil && w.err == nil {
		w.err = err
	}
	return w, nil
}

// comment writes a line of lines(), which start with "# ".
func (w *StanWriter) comment(l string) {
	if err := w.s.Comment(strings.TrimPrefix(strings.TrimPrefix(l, "#"), " ")); err != nil && w.err == nil {
		w.err = err
	}
}

// Row writes one draw. Floats are written in the shortest form that reads
// back to the same float64, so that merge sees exactly the run's draws.
func (w *StanWriter) Row(vals []float64) {
	if err := w.s.WriteFloats(vals); err != nil && w.err == nil {
		w.err = err
	}
}

// Close writes the trailing statistics and closes the file.
func (w *StanWriter) Close(st ChainStats) error {
	for _, l := range st.Lines() {
		w.comment(l)
	}
	err := w.s.Close()
	if w.err != nil {
		err = w.err
	}
	if err == nil && w.s.Restored() {
		err = ErrKeptEarlier
	}
	if err != nil {
		return fmt.Errorf("%s: %w", w.name, err)
	}
	return nil
}

// ErrKeptEarlier is the error of a resumed chain that stopped with fewer
// draws than its file held when it resumed: the file keeps those.
var ErrKeptEarlier = errors.New("this resumed chain stopped sooner than the run it continued, so the file keeps that run's draws, not its own: fix what stopped it and resume again")

// Chain is one chain's CSV read back.
type Chain struct {
	Path     string
	Comments []string // the comment lines before the header
	Header   ChainHeader
	Columns  []string
	Cols     [][]float64 // Cols[j][i]: column j of draw i
	Stats    ChainStats
	Ladder   exchange.Stats // the sampler's own counters; zero when read from a file
	// Partial is set when the file, torn, ended in a partial line, which
	// was dropped.
	Partial bool
	// NoStats is set when the file ends without its trailing block.
	NoStats bool
}

// ErrEmptyChain is the error of a chain CSV with no header row and nothing
// but comment lines, or nothing at all.
var ErrEmptyChain = errors.New("no header row and no draws: the run was killed before writing them")

// ReadStanCSV reads a chain's CSV as written by CreateStanCSV. Errors name
// the file and line.
func ReadStanCSV(path string) (*Chain, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	c := &Chain{Path: path}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<16), 1<<26)
	line := 0
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%s:%d: %s", path, line, fmt.Sprintf(format, a...))
	}
	inStats := false
	// A draw line that does not parse is an error, unless it is the last
	// line of a file without statistics: a process killed while the line
	// was being written (a power cut, a full disk) leaves it partial, and
	// dropping it loses one draw, not the file.
	var partial error
	lastDraw := false // the last line read was a draw
	for sc.Scan() {
		line++
		t := sc.Text()
		if partial != nil {
			return nil, partial
		}
		lastDraw = false
		switch {
		case strings.HasPrefix(t, "#") && c.Columns == nil:
			c.Comments = append(c.Comments, t)
		case strings.HasPrefix(t, "#"):
			if t == StatsHeading {
				inStats = true
			} else if inStats {
				if err := c.Stats.parse(t); err != nil {
					return nil, bad("%v", err)
				}
			}
		case c.Columns == nil:
			c.Columns = strings.Split(t, ",")
			if c.Columns[0] != "lp__" {
				return nil, bad("the header row does not start with lp__: %.40q", t)
			}
			c.Cols = make([][]float64, len(c.Columns))
		default:
			if inStats {
				return nil, bad("a draw after the trailing statistics")
			}
			fs := strings.Split(t, ",")
			if len(fs) != len(c.Columns) {
				partial = bad("%d fields, the header has %d", len(fs), len(c.Columns))
				continue
			}
			row := make([]float64, len(fs))
			for j, s := range fs {
				x, err := strconv.ParseFloat(s, 64)
				if err != nil || math.IsNaN(x) {
					// A NaN would pass into every statistic of its column,
					// and the table would print NaN with exit status 0.
					partial = bad("column %d (%s): %q is not a number", j+1, c.Columns[j], s)
					break
				}
				if math.IsInf(x, 0) && j > 0 {
					// Likewise an infinite draw: the sampler stops on a
					// state that is not finite, so one came from elsewhere.
					// (lp__ may be −∞ where a density underflows.)
					partial = bad("column %d (%s): %q is not a finite number", j+1, c.Columns[j], s)
					break
				}
				row[j] = x
			}
			if partial == nil {
				for j, x := range row {
					c.Cols[j] = append(c.Cols[j], x)
				}
				lastDraw = true
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if c.Columns == nil && line == len(c.Comments) && !inStats {
		// Nothing but (perhaps) the settings: a run killed before its
		// first line reached the file.
		return nil, fmt.Errorf("%s: %w", path, ErrEmptyChain)
	}
	if c.Columns == nil {
		return nil, fmt.Errorf("%s: no header row (is it a chain's CSV?)", path)
	}
	if err := c.Header.parse(c.Comments); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if partial != nil && inStats {
		return nil, partial
	}
	if !inStats && lastDraw && !endsInNewline(f) {
		// A last line cut inside a number may still parse, as another
		// number: without its newline it is not a draw that was written.
		for j := range c.Cols {
			c.Cols[j] = c.Cols[j][:len(c.Cols[j])-1]
		}
		partial = fmt.Errorf("%s:%d: no newline at the end", path, line)
	}
	c.Partial = partial != nil
	c.NoStats = !inStats
	if !inStats {
		// Killed (kill -9, a node lost): the draws written are sound, the
		// counters died with the process.
		c.Stats = ChainStats{Torn: true, Stopped: TornNote}
		if n := len(c.Cols[0]); n > 0 {
			c.Stats.Steps = c.Header.Burn + n*c.Header.Thin
		}
	}
	return c, nil
}

// endsInNewline reports whether the file's last byte is a newline.
func endsInNewline(f *os.File) bool {
	b := make([]byte, 1)
	st, err := f.Stat()
	if err != nil || st.Size() == 0 {
		return false
	}
	_, err = f.ReadAt(b, st.Size()-1)
	return err == nil && b[0] == '\n'
}

func (st *ChainStats) parse(t string) error {
	var err error
	switch {
	case strings.HasPrefix(t, StatSteps):
		st.Steps, err = strconv.Atoi(t[len(StatSteps):])
	case strings.HasPrefix(t, statCost):
		st.Cost, err = strconv.ParseFloat(t[len(statCost):], 64)
	case strings.HasPrefix(t, statClamped):
		var l int
		var c int64
		if _, err = fmt.Sscanf(t[len(statClamped):], "%d: %d", &l, &c); err == nil {
			if l != len(st.Clamped)+1 {
				return fmt.Errorf("clamped steps of level %d out of order", l)
			}
			st.Clamped = append(st.Clamped, c)
		}
	case strings.HasPrefix(t, statAccepted):
		var l int
		var a int64
		if _, err = fmt.Sscanf(t[len(statAccepted):], "%d: %d", &l, &a); err == nil {
			if l < 1 || l > len(st.Clamped) || a < 0 {
				return fmt.Errorf("accepted proposals at level %d: no such level, or a negative count %d", l, a)
			}
			for len(st.Accepted) < len(st.Clamped) {
				st.Accepted = append(st.Accepted, -1)
			}
			st.Accepted[l-1] = a
		}
	case strings.HasPrefix(t, statJumps):
		var l int
		var a, n int64
		if _, err = fmt.Sscanf(t[len(statJumps):], "%d: %d accepted of %d", &l, &a, &n); err == nil {
			if l < 1 || l > len(st.Clamped) || a < 0 || a > n {
				return fmt.Errorf("jumps at level %d: no such level, or %d accepted of %d", l, a, n)
			}
			for len(st.Jumps) < len(st.Clamped) {
				st.Jumps, st.JumpsAccepted = append(st.Jumps, -1), append(st.JumpsAccepted, -1)
			}
			st.Jumps[l-1], st.JumpsAccepted[l-1] = n, a
		}
	case strings.HasPrefix(t, statFrozen):
		st.Frozen = t[len(statFrozen):]
	case strings.HasPrefix(t, statSwaps):
		var a, b, acc, att int
		if _, err = fmt.Sscanf(t[len(statSwaps):], "%d and %d: %d accepted of %d", &a, &b, &acc, &att); err == nil {
			if a != len(st.Attempts)+1 || b != a+1 {
				return fmt.Errorf("swaps between levels %d and %d out of order", a, b)
			}
			st.Accepts, st.Attempts = append(st.Accepts, acc), append(st.Attempts, att)
		}
	case strings.HasPrefix(t, StatStopped):
		st.Stopped = t[len(StatStopped):]
	case strings.HasPrefix(t, StatKilled):
		st.Torn, st.Stopped = true, t[len(StatKilled):]
	case strings.Contains(t, "seconds (Warm-up)"), strings.Contains(t, "seconds (Sampling)"), strings.Contains(t, "seconds (Total)"):
		f := strings.Fields(strings.TrimLeft(t, "# "))
		i := slices.Index(f, "seconds")
		if i < 1 {
			return fmt.Errorf("elapsed time line %q", t)
		}
		s, e := strconv.ParseFloat(f[i-1], 64)
		if e != nil {
			return fmt.Errorf("elapsed time line %q", t)
		}
		d := time.Duration(s * float64(time.Second))
		switch {
		case strings.Contains(t, "Warm-up"):
			st.Warmup = d
		case strings.Contains(t, "Total"):
			st.Wall = d
		}
	}
	if err != nil {
		return fmt.Errorf("statistics line %q: %v", t, err)
	}
	return nil
}

// parse reads back what lines wrote.
func (h *ChainHeader) parse(comments []string) error {
	inSettings := false
	for _, t := range comments {
		k, v, ok := strings.Cut(strings.TrimLeft(t, "# "), " = ")
		if t == "# fresgld" {
			inSettings = true
			continue
		}
		if !ok {
			continue
		}
		var err error
		switch {
		case inSettings:
			h.Settings = append(h.Settings, [2]string{k, v})
		case k == "model":
			h.Command = strings.TrimPrefix(v, "fresgld ")
		case k == "num_samples":
			h.Keep, err = strconv.Atoi(v) // divided by Thin below
		case k == "num_warmup":
			h.Burn, err = strconv.Atoi(v)
		case k == "thin":
			h.Thin, err = strconv.Atoi(v)
		case k == "id":
			h.ID, err = strconv.Atoi(v)
		case k == "seed":
			h.Seed, err = strconv.ParseUint(v, 10, 64)
		}
		if err != nil {
			return fmt.Errorf("setting %s = %q: %v", k, v, err)
		}
	}
	if h.Command == "" || h.Thin < 1 || h.ID < 1 {
		return fmt.Errorf("not a fresgld chain: no model, thin or id in its comments")
	}
	h.Keep /= h.Thin
	return nil
}

// Trace is the chain's draws of the named columns, row by row.
func (c *Chain) Trace(names []string) exchange.Trace {
	tr := exchange.Trace{P: len(names)}
	var cols [][]float64
	for _, n := range names {
		if j := slices.Index(c.Columns, n); j >= 0 {
			cols = append(cols, c.Cols[j])
		}
	}
	if len(cols) != len(names) || len(cols) == 0 {
		return tr
	}
	for i := range cols[0] {
		for _, col := range cols {
			tr.Data = append(tr.Data, col[i])
		}
	}
	return tr
}

// TraceMoments is each coordinate's mean and sd (divided by n).
func TraceMoments(tr exchange.Trace) (mean, sd []float64) {
	mean, sd = make([]float64, tr.P), make([]float64, tr.P)
	for j := range tr.P {
		xs := tr.Coord(j)
		var mu, v float64
		for _, x := range xs {
			mu += x / float64(len(xs))
		}
		for _, x := range xs {
			v += (x - mu) * (x - mu) / float64(len(xs))
		}
		mean[j], sd[j] = mu, math.Sqrt(v)
	}
	return mean, sd
}

// ChainName is the CSV of chain id.
func ChainName(id int) string { return "chain-" + strconv.Itoa(id) + ".csv" }

// ChainFile is the CSV of chain id in dir.
func ChainFile(dir string, id int) string { return filepath.Join(dir, ChainName(id)) }

// ErrInterrupted is the error of a run stopped by its context (SIGINT or
// SIGTERM in the command).
var ErrInterrupted = errors.New("interrupted")

// RewriteHeader replaces the leading comment lines of the chain file at
// path, which must read from, by to, whole or not at all; the rest is
// copied as it is. A run that extended its chains (analysis's extension)
// says the draws it holds, which CmdStan CSV readers check (rstan's
// read_stan_csv warns where num_samples and the rows disagree).
func RewriteHeader(path string, from, to []string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	r := bufio.NewReader(f)
	for _, want := range from {
		l, err := r.ReadString('\n')
		if err != nil || strings.TrimSuffix(l, "\n") != want {
			return fmt.Errorf("%s: its header is not the run's (%q, want %q)", path, strings.TrimSuffix(l, "\n"), want)
		}
	}
	return output.WriteFile(path, func(w io.Writer) error {
		for _, l := range to {
			if _, err := io.WriteString(w, l+"\n"); err != nil {
				return err
			}
		}
		_, err := io.Copy(w, r)
		return err
	})
}
