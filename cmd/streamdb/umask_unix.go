//go:build unix

package main

import "syscall"

// restrictUmask makes every file and directory the process creates its
// owner's alone (see datadir.go).
func restrictUmask() { syscall.Umask(0o077) }
