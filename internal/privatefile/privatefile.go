// Package privatefile writes the small files of a data directory that
// only the server's user may read (the bootstrap password, the key that
// seals secrets), durably.
package privatefile

import (
	"os"
	"path/filepath"
)

// Write writes a new file readable by its owner only, durably: to a
// temporary name, synced, renamed into place, and the directory synced,
// so that a crash leaves the old state or the new one.
func Write(path string, data []byte) error {
	tmp := path + ".tmp"
	os.Remove(tmp) // left by a crash; O_EXCL below then sets the mode
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return err
	}
	d, err := os.Open(filepath.Dir(path))
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
