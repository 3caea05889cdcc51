package dataset

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestReadFileTakeWithIntercept checks that ReadFile (which reserves X at
// its final size from a line count) reads what Read reads, and that
// TakeWithIntercept, which builds the intercept matrix in X's own storage,
// gives WithIntercept's matrix without allocating a second one; with and
// without a final newline, and with a quoted field spanning two lines (more
// lines than rows).
func TestReadFileTakeWithIntercept(t *testing.T) {
	for _, text := range []string{
		"a,y,b\n1,0,2\n3,1,4.5\n-1,1,0\n",
		"a,y,b\n1,0,2\n3,1,4.5\n-1,1,0",
		"\"a\nb\",y,c\n1,0,2\n3,1,4.5\n-1,1,7\n",
	} {
		path := filepath.Join(t.TempDir(), "d.csv")
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		want, err := Read(bytes.NewReader([]byte(text)), path, Options{Label: "y"})
		if err != nil {
			t.Fatal(err)
		}
		got, err := ReadFile(path, Options{Label: "y"})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got.X, want.X) || !slices.Equal(got.Y, want.Y) || got.N != want.N || got.P != want.P {
			t.Fatalf("%q: ReadFile %+v, Read %+v", text, got, want)
		}
		if cap(got.X) < got.N*(got.P+1) {
			t.Errorf("%q: ReadFile left room for %d values, want %d", text, cap(got.X), got.N*(got.P+1))
		}
		wx, wp := want.WithIntercept()
		store := &got.X[:1][0]
		gx, gp := got.TakeWithIntercept()
		if gp != wp || !slices.Equal(gx, wx) {
			t.Errorf("%q: TakeWithIntercept %v (p = %d), WithIntercept %v (p = %d)", text, gx, gp, wx, wp)
		}
		if &gx[0] != store {
			t.Errorf("%q: TakeWithIntercept copied X", text)
		}
		if got.X != nil {
			t.Errorf("%q: X kept after TakeWithIntercept", text)
		}
		// Without room it copies, with the same result.
		wx2, _ := want.WithIntercept()
		want.X = slices.Clip(want.X)
		if gx2, _ := want.TakeWithIntercept(); !slices.Equal(gx2, wx2) {
			t.Errorf("%q: TakeWithIntercept without room %v, want %v", text, gx2, wx2)
		}
	}
}
