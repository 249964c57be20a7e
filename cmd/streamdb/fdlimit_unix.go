//go:build unix

package main

import "syscall"

// raiseFileLimit raises the soft limit on open files to the hard limit,
// as far as the kernel allows, and returns the limit now in force (0 when
// it cannot be read).
func raiseFileLimit() uint64 {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return 0
	}
	if lim.Cur < lim.Max {
		raised := lim
		raised.Cur = lim.Max
		if syscall.Setrlimit(syscall.RLIMIT_NOFILE, &raised) == nil {
			lim = raised
		}
	}
	return lim.Cur
}
