//go:build !unix

package main

// raiseFileLimit reports no limit where there is no RLIMIT_NOFILE.
func raiseFileLimit() uint64 { return 0 }
