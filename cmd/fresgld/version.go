package main

import "runtime/debug"

// version is set at link time for releases:
//
//	go build -ldflags "-X main.version=v1.2.3" ./cmd/fresgld
var version string

// buildVersion is the version --version prints: the link-time version if
// set, else the module version and VCS revision Go recorded in the binary.
func buildVersion() string {
	if version != "" {
		return version
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	v := bi.Main.Version
	if v == "" {
		v = "(devel)"
	}
	var rev, dirty string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "+dirty"
			}
		}
	}
	if rev != "" {
		if len(rev) > 12 {
			rev = rev[:12]
		}
		v += " " + rev + dirty
	}
	return v
}
