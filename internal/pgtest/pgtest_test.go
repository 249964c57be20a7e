package pgtest

import (
	"context"
	"strings"
	"testing"
)

func TestStartCluster(t *testing.T) {
	c := Start(t)
	out, err := c.Psql(context.Background(), "-Atc", "SHOW wal_level")
	if err != nil {
		t.Fatalf("psql: %v\n%s", err, out)
	}
	if strings.TrimSpace(out) != "logical" {
		t.Fatalf("wal_level = %q", out)
	}
}
