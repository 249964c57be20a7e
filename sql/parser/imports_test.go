package parser

import (
	goparser "go/parser"
	gotoken "go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The parser must stay a leaf: the standard library and pgerr only, and
// no cgo, so that it builds and fuzzes with CGO_ENABLED=0.
func TestImports(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := gotoken.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := goparser.ParseFile(fset, name, nil, goparser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if path == "C" || strings.Contains(path, ".") && path != "github.com/streamdb/streamdb/pgerr" {
				t.Errorf("%s imports %s", name, path)
			}
		}
	}
}
