package sqllogictest

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// ExpandPaths turns the command line's paths into the files to run: a file
// is taken as it is, whatever its name; a directory is searched
// recursively for *.test and *.slt files, in lexical order.
func ExpandPaths(paths []string) ([]string, error) {
	var files []string
	for _, p := range paths {
		info, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if !info.IsDir() {
			files = append(files, p)
			continue
		}
		var found []string
		err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() && (strings.HasSuffix(path, ".test") || strings.HasSuffix(path, ".slt")) {
				found = append(found, path)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		if len(found) == 0 {
			return nil, fmt.Errorf("%s: no *.test or *.slt files", p)
		}
		sort.Strings(found)
		files = append(files, found...)
	}
	return files, nil
}

// CorpusDir returns the directory of SQLite's sqllogictest corpus: $SLT_CORPUS
// when set, else ../shared/sqllogictest/sqlite relative to the repository
// root, which is found by walking up from the working directory to go.mod.
// It returns "" when the corpus is absent.
func CorpusDir() string {
	if d := os.Getenv("SLT_CORPUS"); d != "" {
		if isDir(d) {
			return d
		}
		return ""
	}
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			d := filepath.Join(dir, "..", "shared", "sqllogictest", "sqlite")
			if isDir(d) {
				return filepath.Clean(d)
			}
			return ""
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

func isDir(p string) bool {
	info, err := os.Stat(p)
	return err == nil && info.IsDir()
}
