package report

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"html"
	"image"
	"image/png"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// probe, added to a copy of the page, records once the page has loaded
// what a reader would see: each image's decoded size and place, and each
// summary table's rows and place, in CSS pixels from the page's top left.
const probe = `<script>
addEventListener('load', () => {
  const rect = e => { const r = e.getBoundingClientRect(); return [r.left + scrollX, r.top + scrollY, r.width, r.height]; };
  const out = {
    width: document.documentElement.scrollWidth,
    height: document.documentElement.scrollHeight,
    verdict: (document.getElementById('verdict') || {textContent: ''}).textContent,
    images: [...document.images].map(i => ({alt: i.alt, complete: i.complete, natural: [i.naturalWidth, i.naturalHeight], rect: rect(i)})),
    tables: [...document.querySelectorAll('#summary table')].map(t => ({rect: rect(t), rows: [...t.tBodies[0].rows].map(r => r.cells[0].textContent)})),
  };
  const pre = document.createElement('pre');
  pre.id = 'probe';
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
});
</script>
`

type probed struct {
	Width, Height float64
	Verdict       string
	Images        []struct {
		Alt      string
		Complete bool
		Natural  [2]float64
		Rect     [4]float64
	}
	Tables []struct {
		Rect [4]float64
		Rows []string
	}
}

// TestReportInChromium opens a run's report in headless Chromium: it
// checks from the page's DOM that every figure decoded and has a size on
// the page and that the summary table has a row per variable, then takes
// a screenshot and checks that the figure's region shows the figure (its
// pixels far closer to the figure's own than a blank page's are) and that
// the table's region holds text.
func TestReportInChromium(t *testing.T) {
	browser := ""
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			browser = p
			break
		}
	}
	if browser == "" {
		t.Skip("no chromium on PATH (Debian package chromium): the report's browser test is skipped")
	}
	dir, names, page := fakeReport(t)
	probePage := filepath.Join(dir, "probe.html")
	withProbe := bytes.Replace(page, []byte("</body>"), []byte(probe+"</body>"), 1)
	if err := os.WriteFile(probePage, withProbe, 0o644); err != nil {
		t.Fatal(err)
	}
	const width = 1000 // CSS pixels, at a device scale of 1: screenshot pixels
	dom := chromium(t, browser, dir, "--dump-dom", fmt.Sprintf("--window-size=%d,800", width), "file://"+probePage)
	var p probed
	i, j := strings.Index(dom, `<pre id="probe">`), strings.LastIndex(dom, "</pre>")
	if i < 0 || j < i {
		t.Fatalf("the probe did not run; the DOM ends %q", dom[max(0, len(dom)-300):])
	}
	if err := json.Unmarshal([]byte(html.UnescapeString(dom[i+len(`<pre id="probe">`):j])), &p); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(p.Verdict, "Verdict: ") {
		t.Errorf("the page shows no verdict line (got %q)", p.Verdict)
	}
	if len(p.Images) != 1 {
		t.Fatalf("%d images in the page, want the one figure the run wrote", len(p.Images))
	}
	fig := p.Images[0]
	if !fig.Complete || fig.Natural[0] == 0 || fig.Natural[1] == 0 || fig.Rect[2] == 0 || fig.Rect[3] == 0 {
		t.Fatalf("figure %q did not render: complete %v, decoded %v, on the page %v", fig.Alt, fig.Complete, fig.Natural, fig.Rect)
	}
	if len(p.Tables) != 1 || !slices.Equal(p.Tables[0].Rows, names) {
		t.Fatalf("summary tables %+v, want one with the rows %q", p.Tables, names)
	}

	// The screenshot: the whole page in one window. The probe measured the
	// same page at the same width with no scrollbars, so the places hold.
	shotPath := filepath.Join(dir, "shot.png")
	chromium(t, browser, dir, "--screenshot="+shotPath, fmt.Sprintf("--window-size=%d,%d", width, int(math.Ceil(p.Height))), "file://"+filepath.Join(dir, FileName))
	shot := decodePNG(t, shotPath)
	want := decodePNG(t, filepath.Join(dir, "trace.png"))
	// The image has a 1-pixel border; inside it, at its natural size, the
	// screenshot should hold the figure's own pixels.
	x0, y0 := int(math.Round(fig.Rect[0]))+1, int(math.Round(fig.Rect[1]))+1
	if fig.Rect[2]-2 != fig.Natural[0] {
		t.Fatalf("the figure is drawn %v pixels wide, not at its natural %v: widen the window", fig.Rect[2]-2, fig.Natural[0])
	}
	var dShot, dBlank float64
	b := want.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			dShot += colourDistance(shot.At(x0+x, y0+y), want.At(x, y))
			dBlank += colourDistance(shot.At(0, 0), want.At(x, y)) // the page's background
		}
	}
	if dBlank == 0 || !(dShot < dBlank/10) {
		t.Errorf("the figure's region differs from the figure by %.4g (a blank page by %.4g): it did not render as drawn", dShot, dBlank)
	}
	// The table's region holds text: dark pixels on a light ground.
	r := p.Tables[0].Rect
	dark, light := 0, 0
	for y := int(r[1]); y < int(r[1]+r[3]); y++ {
		for x := int(r[0]); x < int(r[0]+r[2]); x++ {
			if l := luma(shot.At(x, y)); l < 0.5 {
				dark++
			} else {
				light++
			}
		}
	}
	t.Logf("figure's region: distance %.4g to the figure, %.4g from a blank page to it; table's region: %d dark, %d light pixels", dShot, dBlank, dark, light)
	if dark == 0 || light == 0 {
		t.Errorf("the table's region (%v) has %d dark and %d light pixels: no text rendered", r, dark, light)
	}
}

// chromium runs the browser headless on one page with a profile of its
// own, and returns what it prints on stdout.
func chromium(t *testing.T, browser, dir string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	args = append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--force-device-scale-factor=1",
		"--user-data-dir=" + filepath.Join(dir, "profile"), "--virtual-time-budget=5000"}, args...)
	cmd := exec.CommandContext(ctx, browser, args...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s: %v\n%s", browser, strings.Join(args, " "), err, errOut.String())
	}
	return out.String()
}

func decodePNG(t *testing.T, path string) image.Image {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return img
}

// colourDistance is the mean absolute difference of two colours'
// channels, in [0, 1].
func colourDistance(a, b interface{ RGBA() (r, g, b, a uint32) }) float64 {
	r1, g1, b1, _ := a.RGBA()
	r2, g2, b2, _ := b.RGBA()
	d := func(x, y uint32) float64 { return math.Abs(float64(x)-float64(y)) / 0xffff }
	return (d(r1, r2) + d(g1, g2) + d(b1, b2)) / 3
}

// luma is a colour's brightness in [0, 1].
func luma(c interface{ RGBA() (r, g, b, a uint32) }) float64 {
	r, g, b, _ := c.RGBA()
	return (0.299*float64(r) + 0.587*float64(g) + 0.114*float64(b)) / 0xffff
}
