// Package buildinfo says which build of svc is running.
package buildinfo

import "runtime/debug"

// Version is set at build time with -ldflags "-X github.com/svcplatform/svc/buildinfo.Version=v1.2.3".
var Version = "dev"

// Commit is the VCS revision, when the build recorded one.
func Commit() string {
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, s := range info.Settings {
			if s.Key == "vcs.revision" {
				return s.Value
			}
		}
	}
	return ""
}

// UserAgent names the service and its version for outgoing requests, e.g. "svc/1.0 (orchestration)".
func UserAgent(product string) string {
	if product == "" {
		return "svc/" + Version
	}
	return "svc/" + Version + " (" + product + ")"
}
