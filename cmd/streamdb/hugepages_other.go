//go:build !unix

package main

// useHugePages does nothing without exec(2); transparent huge pages and
// glibc's tunable are Linux's anyway.
func useHugePages() {}
