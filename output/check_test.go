package output

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Check refuses what Prepare would refuse, and creates nothing.
func TestCheck(t *testing.T) {
	root := t.TempDir()
	file := filepath.Join(root, "file")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		path, want string
	}{
		{file, "exists and is not a directory"},
		{filepath.Join(file, "sub", "deeper"), file + " is a file, not a directory"},
		{"", "no output directory"},
		{filepath.Join(root, "new", "out"), ""},
		{root, ""},
	} {
		err := Check(c.path)
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("Check(%q) = %v, want %q", c.path, err, c.want)
		}
		if _, err := Prepare(c.path); (err == nil) != (c.want == "") {
			t.Errorf("Prepare(%q) = %v, but Check said %q", c.path, err, c.want)
		}
	}
	os.RemoveAll(filepath.Join(root, "new"))
	if err := Check(filepath.Join(root, "new", "out")); err != nil {
		t.Fatal(err)
	}
	if ents, _ := os.ReadDir(root); len(ents) != 1 {
		t.Errorf("Check left %d entries in %s, want only the file", len(ents), root)
	}
}
