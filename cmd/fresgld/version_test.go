package main

import (
	"runtime/debug"
	"strings"
	"testing"
)

// --version names a version in every kind of build: a release's module
// version as recorded, a checkout's as this tree's with its revision, and
// never "(devel)", also when the build recorded no revision.
func TestVersionOf(t *testing.T) {
	cases := []struct {
		name    string
		bi      debug.BuildInfo
		want    string
		mustNot string
	}{
		{"release", debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}}, "v1.2.3", "dev"},
		{"no VCS stamp", debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, moduleVersion + "-dev (built from source; no VCS revision recorded)", "(devel)"},
		{"checkout", debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "0123456789abcdef0123"}, {Key: "vcs.modified", Value: "true"}}},
			moduleVersion + "-dev (revision 0123456789ab, modified)", "(devel)"},
	}
	for _, c := range cases {
		got := versionOf(&c.bi)
		if got != c.want || strings.Contains(got, c.mustNot) {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
	if got := buildVersion(); strings.Contains(got, "(devel)") || !strings.HasPrefix(got, "v") {
		t.Errorf("this test binary's version %q", got)
	}
}
