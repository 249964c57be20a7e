package main

import (
	"log/slog"
	"os"
)

// The data directory holds every table, the roles' verifiers, the TLS key
// and a generated password, so it is the owner's alone: created 0700, and
// tightened to 0700 with a warning when an older streamdb, or a user, left
// it open to others. Files in it are 0600 because the process runs with
// umask 077 (umask_unix.go): Pebble creates its files with mode 0666 and
// its FS interface has no mode to pass, so the umask is the one place that
// covers them and everything else streamdb writes.

// prepareDataDir creates dir, or closes an existing one to other users.
func prepareDataDir(dir string, log *slog.Logger) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	st, err := os.Stat(dir)
	if err != nil {
		return err
	}
	if st.Mode().Perm()&0o077 == 0 {
		return nil
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		return err
	}
	log.Warn("the data directory was open to other users; its mode is now 0700", "dir", dir, "was", st.Mode().Perm().String())
	return nil
}
