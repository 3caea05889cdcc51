// Package report writes a run's report.html: one self-contained page (no
// network, no files beside it) with the run's settings, its summary table,
// the warnings with their remedies, the swap and ladder statistics, the cost
// and the figures inline, so that a run can be judged, archived or mailed as
// one file.
//
// A run fills a Report (or Load builds one from a run directory) and Write
// renders it with html/template, which escapes every string: column names
// come from users' CSV headers.
package report

import (
	"embed"
	"encoding/base64"
	"fmt"
	"html"
	"html/template"
	"io"
	"regexp"
	"strings"

	"github.com/fresgld/fresgld/diag"
)

// FileName is the report's name in a run directory.
const FileName = "report.html"

// Report is what the page shows, section by section; empty sections are left
// out.
type Report struct {
	Title string
	// Verdict is the first line: trusted, doubtful or failed, and why.
	Verdict Verdict
	// Searched says what the plan's mode search looked at, below the
	// verdict, which holds only within it: a search says where modes are,
	// never that there are none elsewhere ("" where it ran none).
	Searched string
	// Failure is what a failed run said: the errors that stopped its
	// chains and, for a model in another process, the model's own error
	// (its standard error's tail and exit status among it).
	Failure []Item
	// Lines are the run's opening lines: what ran, on what, for how long,
	// how many chains and draws the tables pool.
	Lines    []string
	Warnings []Warning
	Settings []Item
	// Choices say how the automatic settings were chosen (the step size's
	// rule, the minibatch's, the swap energies').
	Choices []Item
	// Tables are the summary tables, first the one the command prints.
	Tables []Table
	Pairs  []Pair
	Levels []Level
	// Ladders are the ladders' round-trip statistics, a row per chain.
	Ladders *Table
	// Groups are further named lists: the cost, distances to an exact
	// answer.
	Groups []Group
	// Exact compares the run with an exact answer, where one is known:
	// the run's estimate ± MCSE against the exact value, passing within
	// ExactTolerance MCSEs.
	Exact   *Table
	Notes   []string
	Figures []Figure
}

// Item is one named value.
type Item struct{ Name, Value string }

// Group is a headed list of items.
type Group struct {
	Heading string
	Items   []Item
}

// Warning is one thing that should make a reader doubt the run, with the
// number that triggered it and what to do about it.
type Warning struct {
	Code    string // a short stable name, e.g. "rhat"; empty when unknown
	Message string
	// Number is the measured value the warning is about; nil when the
	// warning carries none apart from its message.
	Number *float64
	Remedy string
}

// Table is a headed table; the first column names the row.
type Table struct {
	Caption string
	Columns []string
	Rows    [][]Cell
}

// Cell is one entry; Flag marks an entry past a warning's threshold.
type Cell struct {
	Text string
	Flag bool
}

// Pair is the swap statistics of two adjacent levels, numbered from 1, the
// coldest.
type Pair struct {
	Levels   [2]int
	Attempts int
	Accepts  int
	// NoSwap counts the chains that attempted swaps on this pair and
	// accepted none.
	NoSwap int
	// Noise is the mean swap noise τδ²V/2 in nats, Confirmed the attempts
	// decided on the full data after their screen passed, Declined those
	// declined for noise above the cap; nil when the run's swap energies
	// have none or the run did not record them.
	Noise     *float64
	Confirmed *int
	Declined  *int
}

// Rate is the share of attempts accepted, "–" without attempts.
func (p Pair) Rate() string {
	if p.Attempts == 0 {
		return "–"
	}
	return fmt.Sprintf("%.3f", float64(p.Accepts)/float64(p.Attempts))
}

// Level is one temperature level's clamp statistics: the steps at which its
// gradient noise exceeded its whole noise budget 2τη.
type Level struct {
	Level   int
	Steps   int
	Clamped int64
	// Accepted are a Metropolis-adjusted level's accepted proposals (nil
	// at other levels).
	Accepted *int64
	// Jumps and JumpsAccepted are a level's jumps between the modes and
	// those accepted (nil at a level that does not jump).
	Jumps, JumpsAccepted *int64
}

// JumpAcceptance is the share of jumps between the modes accepted, with
// the counts, or "—" at a level that makes none.
func (l Level) JumpAcceptance() string {
	if l.Jumps == nil || l.JumpsAccepted == nil || *l.Jumps == 0 {
		return "—"
	}
	return fmt.Sprintf("%.3f (%d of %d)", float64(*l.JumpsAccepted)/float64(*l.Jumps), *l.JumpsAccepted, *l.Jumps)
}

// Acceptance is the share of proposals accepted, or "—" at a level that
// makes none.
func (l Level) Acceptance() string {
	if l.Accepted == nil {
		return "—"
	}
	return fmt.Sprintf("%.3f", float64(*l.Accepted)/float64(max(l.Steps, 1)))
}

// Share is the percentage of steps clamped.
func (l Level) Share() string {
	return fmt.Sprintf("%.2f%%", 100*float64(l.Clamped)/float64(max(l.Steps, 1)))
}

// Figure is one image, embedded in the page as a data URI.
type Figure struct {
	Name    string
	Caption string
	Type    string // image/png or image/svg+xml
	Data    []byte
}

// Src is the figure's data URI. It is built here from the bytes, whatever
// they hold, so it cannot point outside the page.
func (f Figure) Src() template.URL {
	return template.URL("data:" + f.Type + ";base64," + base64.StdEncoding.EncodeToString(f.Data))
}

// Variable is one row of a summary table.
type Variable struct {
	Name string
	diag.Summary
}

// SummaryColumns head a summary table, as the commands print it.
var SummaryColumns = []string{"variable", "mean", "mcse", "sd", "5%", "50%", "95%", "ess_bulk", "ess_tail", "rhat"}

// SummaryTable formats rows as the commands print them, flagging an R̂
// above RhatMax and a bulk ESS below ESSTotalMin or ESSPerChainMin per
// chain (chains being the number the diagnostics use).
func SummaryTable(caption string, rows []Variable, chains int) Table {
	t := Table{Caption: caption, Columns: SummaryColumns}
	for _, v := range rows {
		t.Rows = append(t.Rows, []Cell{
			{Text: v.Name},
			{Text: fmt.Sprintf("%.4g", v.Mean)},
			{Text: fmt.Sprintf("%.2g", v.MCSEMean)},
			{Text: fmt.Sprintf("%.3g", v.SD)},
			{Text: fmt.Sprintf("%.4g", v.Q5)},
			{Text: fmt.Sprintf("%.4g", v.Q50)},
			{Text: fmt.Sprintf("%.4g", v.Q95)},
			{Text: fmt.Sprintf("%.0f", v.ESSBulk), Flag: v.SD != 0 && !(v.ESSBulk >= max(ESSTotalMin, ESSPerChainMin*float64(chains)))},
			{Text: fmt.Sprintf("%.0f", v.ESSTail)},
			{Text: fmt.Sprintf("%.3f", v.Rhat), Flag: v.SD != 0 && !(v.Rhat <= RhatMax)},
		})
	}
	return t
}

//go:embed report.html.tmpl
var files embed.FS

var page = template.Must(template.New("report.html.tmpl").Funcs(template.FuncMap{
	"number": func(x *float64) string {
		if x == nil {
			return "–"
		}
		return fmt.Sprintf("%.4g", *x)
	},
	"flags": flags,
	"count": func(n *int) string {
		if n == nil {
			return "–"
		}
		return fmt.Sprint(*n)
	},
}).ParseFS(files, "report.html.tmpl"))

// flag matches a command-line flag in a warning or a remedy.
var flag = regexp.MustCompile(`--[a-z0-9][a-z0-9-]*`)

// flags escapes s and sets each flag in it as code that does not break
// across lines (a browser would break "--keep" after its first hyphen).
func flags(s string) template.HTML {
	var b strings.Builder
	last := 0
	for _, m := range flag.FindAllStringIndex(s, -1) {
		b.WriteString(html.EscapeString(s[last:m[0]]))
		b.WriteString(`<code class="opt">` + html.EscapeString(s[m[0]:m[1]]) + `</code>`)
		last = m[1]
	}
	b.WriteString(html.EscapeString(s[last:]))
	return template.HTML(b.String())
}

// Write renders r as one HTML page.
func Write(w io.Writer, r *Report) error {
	return page.Execute(w, r)
}
