package sqllogictest

import (
	"os"
	"path/filepath"
	"testing"
)

// TestApplyRewrites covers what the end-to-end rewrite test cannot reach
// without a server: CRLF files and a last line without a newline.
func TestApplyRewrites(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{{
		name: "replace results, CRLF kept",
		in:   "query I nosort\r\nSELECT 1\r\n----\r\n2\r\n3\r\n\r\n# after\r\n",
		want: "query I nosort\r\nSELECT 1\r\n----\r\n1\r\n\r\n# after\r\n",
	}, {
		name: "add separator at end of file without newline",
		in:   "query I nosort\nSELECT 1",
		want: "query I nosort\nSELECT 1\n----\n1\n",
	}, {
		name: "empty results after separator",
		in:   "query I nosort\nSELECT 1\n----\n\nstatement ok\nSELECT 2\n",
		want: "query I nosort\nSELECT 1\n----\n1\n\nstatement ok\nSELECT 2\n",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "f.slt")
			if err := os.WriteFile(path, []byte(tt.in), 0o644); err != nil {
				t.Fatal(err)
			}
			recs := parseAll(t, tt.in)
			if err := applyRewrites(path, []rewrite{{rec: recs[0], lines: []string{"1"}}}); err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}
