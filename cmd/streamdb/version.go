package main

import (
	"runtime/debug"
	"strings"
)

// version is the release, set at link time
// (-ldflags "-X main.version=v1.2.3"); without it, the module's version
// and the commit recorded in the build.
var version = ""

// versionString is what --version prints and the startup log records:
// the release or module version, the commit (marked when the tree was
// modified) and the Go version.
func versionString() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return orDevel(version)
	}
	v := version
	if v == "" {
		v = info.Main.Version
	}
	parts := []string{orDevel(v)}
	var rev, modified string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				modified = "+dirty"
			}
		}
	}
	if rev != "" {
		parts = append(parts, "commit "+rev[:min(12, len(rev))]+modified)
	}
	parts = append(parts, info.GoVersion)
	return strings.Join(parts, " ")
}

func orDevel(v string) string {
	if v == "" || v == "(devel)" {
		return "devel"
	}
	return v
}
