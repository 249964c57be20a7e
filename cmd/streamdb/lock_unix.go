//go:build unix

package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// lockFile is the data directory's lock: held (flock) by the running
// server, and holding its pid, so that a second server on the same
// directory can say who holds it instead of the store's bare
// "resource temporarily unavailable".
const lockFile = "streamdb.pid"

// lockDataDir takes dir's lock for the life of the process; the returned
// file must stay open. Another streamdb holding it is an error that names
// its pid.
func lockDataDir(dir string) (*os.File, error) {
	path := filepath.Join(dir, lockFile)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		defer f.Close()
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("lock data directory %s: %w", dir, err)
		}
		holder := "another streamdb"
		if b, err := os.ReadFile(path); err == nil {
			if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
				holder = fmt.Sprintf("another streamdb (pid %d)", pid)
			}
		}
		return nil, fmt.Errorf("data directory %s is in use by %s; stop it, or start this one with another --data-dir", dir, holder)
	}
	if err := f.Truncate(0); err != nil {
		f.Close()
		return nil, err
	}
	if _, err := f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}
