package report

import (
	"bytes"
	"encoding/json"
	"html"
	"math"
	"regexp"
	"strings"
	"testing"

	"github.com/fresgld/fresgld/diag"
)

// tag matches a tag: escaped text holds no "<", so every match is markup.
var tag = regexp.MustCompile(`<[^>]*>`)

// reference matches every attribute that can make a browser fetch
// something.
var reference = regexp.MustCompile(`(?i)\s(src|href|srcset|poster|data|action|formaction|background|xlink:href)\s*=\s*("[^"]*"|'[^']*'|[^\s>]+)`)

// TestReportIsSelfContained renders a run whose column names hold markup
// and checks that the page references nothing outside itself, shows every
// name escaped, and holds every variable's row.
func TestReportIsSelfContained(t *testing.T) {
	_, names, b := fakeReport(t)
	page := string(b)
	imgs := 0
	for _, m := range tag.FindAllString(page, -1) {
		for _, a := range reference.FindAllStringSubmatch(m, -1) {
			if v := strings.Trim(a[2], `"'`); !strings.HasPrefix(v, "data:image/png;base64,") && !strings.HasPrefix(v, "data:image/svg+xml;base64,") {
				t.Errorf("external reference %.80q", a[0])
			}
			imgs++
		}
		// The rest of the tag, data URIs (whose base64 holds slashes)
		// left out.
		low := strings.ToLower(reference.ReplaceAllString(m, ""))
		for _, bad := range []string{"<link", "<script", "<iframe", "<object", "<embed", "<base", "http-equiv", "http:", "https:", "//"} {
			if strings.Contains(low, bad) {
				t.Errorf("tag %.80q holds %q", m, bad)
			}
		}
	}
	style := page[strings.Index(page, "<style>"):strings.Index(page, "</style>")]
	for _, bad := range []string{"url(", "@import", "http", "//"} {
		if strings.Contains(style, bad) {
			t.Errorf("the style sheet holds %q", bad)
		}
	}
	if imgs != 1 {
		t.Errorf("%d images, want the one figure the run wrote", imgs)
	}
	// Every name is in the page escaped, and every row is there: the
	// first cell of a summary row is the variable's name.
	cell := regexp.MustCompile(`<td class="name">([^<]*)</td>`)
	var rows []string
	for _, m := range cell.FindAllStringSubmatch(page, -1) {
		rows = append(rows, html.UnescapeString(m[1]))
	}
	for _, n := range names {
		if !strings.Contains(page, html.EscapeString(n)) {
			t.Errorf("%q is not in the page escaped", n)
		}
		found := false
		for _, r := range rows {
			found = found || r == n
		}
		if !found {
			t.Errorf("no row for %q in %q", n, rows)
		}
	}
	// The level that jumps shows its share of jumps accepted and its
	// Metropolis acceptance; the other shows neither.
	for _, s := range []string{`<td class="num">0.550</td><td class="num">0.250 (50 of 200)</td>`, `<td class="num">—</td><td class="num">—</td>`} {
		if !strings.Contains(page, s) {
			t.Errorf("the levels' table lacks %q", s)
		}
	}
	for _, s := range []string{"<b>bold</b>", "<now>"} {
		if strings.Contains(page, s) {
			t.Errorf("%q (a setting's value, a warning) is in the page unescaped", s)
		}
	}
}

// TestSummaryTableFlags checks the numbers' formats (the command's) and
// that exactly the cells past a warning's threshold are flagged: R̂ above
// 1.01, bulk ESS below 400 in all or 100 per chain, a NaN R̂; and not those of a
// constant variable, whose R̂ and ESS are undefined.
func TestSummaryTableFlags(t *testing.T) {
	good := diag.Summary{Mean: 1.234567, MCSEMean: 0.01234, SD: 0.5, Q5: 0.1, Q50: 1, Q95: 2, ESSBulk: max(ESSTotalMin, 2*ESSPerChainMin), ESSTail: 300, Rhat: RhatMax}
	highR, lowESS, nanR, constant := good, good, good, diag.Summary{SD: 0, Rhat: math.NaN(), ESSBulk: math.NaN()}
	highR.Rhat = math.Nextafter(RhatMax, 2)
	lowESS.ESSBulk = good.ESSBulk - 1
	nanR.Rhat = math.NaN()
	tb := SummaryTable("", []Variable{{"good", good}, {"highR", highR}, {"lowESS", lowESS}, {"nanR", nanR}, {"constant", constant}}, 2)
	const ess, rhat = 7, 9
	want := map[string][2]bool{"good": {}, "highR": {false, true}, "lowESS": {true, false}, "nanR": {false, true}, "constant": {}}
	for _, r := range tb.Rows {
		if got := [2]bool{r[ess].Flag, r[rhat].Flag}; got != want[r[0].Text] {
			t.Errorf("%s: flags (ess, rhat) %v, want %v", r[0].Text, got, want[r[0].Text])
		}
	}
	if got := strings.Join(cellTexts(tb.Rows[0]), " "); got != "good 1.235 0.012 0.5 0.1 1 2 400 300 1.010" {
		t.Errorf("row %q, not as the command prints it", got)
	}
	if tb.Columns[ess] != "ess_bulk" || tb.Columns[rhat] != "rhat" {
		t.Errorf("columns %v", tb.Columns)
	}
}

// TestFlagsEscapeAndKeepFlagsWhole checks that warnings' text is escaped
// and each flag set whole.
func TestFlagsEscapeAndKeepFlagsWhole(t *testing.T) {
	got := flags(`raise --keep & --swap-energies <b>"x"</b>; -- alone`)
	want := `raise <code class="opt">--keep</code> &amp; <code class="opt">--swap-energies</code> &lt;b&gt;&#34;x&#34;&lt;/b&gt;; -- alone`
	if string(got) != want {
		t.Errorf("flags gave\n%s\nwant\n%s", got, want)
	}
}

func cellTexts(r []Cell) []string {
	var out []string
	for _, c := range r {
		out = append(out, c.Text)
	}
	return out
}

// TestWriteEmptyAndWarnings renders a report filled by hand: an empty one
// says there are no warnings; one with warnings shows each with its
// number and remedy.
func TestWriteEmptyAndWarnings(t *testing.T) {
	var b bytes.Buffer
	if err := Write(&b, &Report{Title: "empty"}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "None: no diagnostic crossed its warning threshold") {
		t.Errorf("an empty report does not say it has no warnings")
	}
	x := 1.25
	b.Reset()
	r := &Report{Title: "w", Warnings: []Warning{{Code: "rhat", Message: "R̂ > 1.01 for 2 variables", Number: &x, Remedy: "run longer"}}}
	if err := Write(&b, r); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{`data-code="rhat"`, "R̂ &gt; 1.01 for 2 variables", `<span class="number">rhat 1.25</span>`, "<b>Remedy:</b> run longer"} {
		if !strings.Contains(b.String(), s) {
			t.Errorf("the warning's %q is not in the page", s)
		}
	}
	if strings.Contains(b.String(), "None: no diagnostic") {
		t.Errorf("a report with a warning says it has none")
	}
}

// TestWarningsFromDetails reads warnings as values where summary.json
// holds them, the remedy apart from the message, and as plain messages
// where it does not.
func TestWarningsFromDetails(t *testing.T) {
	var s summary
	err := json.Unmarshal([]byte(`{"warnings": ["R̂ > 1.01 for 2 of 3 variables: run longer", "chain 2 was interrupted"],
		"warning_details": [{"code": "rhat", "message": "R̂ > 1.01 for 2 of 3 variables: run longer", "number": 1.2, "remedy": "run longer"},
			{"code": "interrupted", "chain": 2, "message": "chain 2 was interrupted", "number": 0}]}`), &s)
	if err != nil {
		t.Fatal(err)
	}
	ws := warnings(s)
	if len(ws) != 2 || ws[0].Message != "R̂ > 1.01 for 2 of 3 variables" || ws[0].Remedy != "run longer" || ws[0].Number == nil || *ws[0].Number != 1.2 ||
		ws[1].Message != "chain 2 was interrupted" || ws[1].Number != nil || ws[1].Remedy != "" {
		t.Errorf("warnings %+v", ws)
	}
	s.Details = nil
	if ws := warnings(s); len(ws) != 2 || ws[0].Message != s.Warnings[0] || ws[0].Code != "" {
		t.Errorf("without details: %+v", ws)
	}
}

// The swap table takes each pair's noise and its confirmed and declined
// attempts from summary.json.
func TestLoadPairs(t *testing.T) {
	dir := t.TempDir()
	fakeRun(t, dir)
	r, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Pairs) != 1 {
		t.Fatalf("%d pairs, want 1", len(r.Pairs))
	}
	p := r.Pairs[0]
	if p.Noise == nil || *p.Noise != 0.3 || p.Confirmed == nil || *p.Confirmed != 7 || p.Declined == nil || *p.Declined != 3 {
		t.Errorf("pair %+v: want noise 0.3, 7 confirmed, 3 declined", p)
	}
}
