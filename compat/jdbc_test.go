//go:build compat

package compat

import (
	"os"
	"os/exec"
	"strconv"
	"testing"
)

// jdbcJar is where Debian's libpostgresql-jdbc-java puts the driver.
const jdbcJar = "/usr/share/java/postgresql.jar"

// TestJDBC runs clients/jdbc/Compat.java with the PostgreSQL JDBC
// driver: PreparedStatement batches, every type read back,
// DatabaseMetaData (tables, columns, keys, indexes, types), SQLSTATEs,
// cancel, and ssl=true against a self-signed certificate. The server has
// TLS so that both plaintext (sslmode=disable) and TLS connect.
func TestJDBC(t *testing.T) {
	java, err := exec.LookPath("java")
	if err != nil {
		t.Skip("java not installed (apt-get install default-jdk-headless)")
	}
	if _, err := os.Stat(jdbcJar); err != nil {
		t.Skip("PostgreSQL JDBC driver not installed (apt-get install libpostgresql-jdbc-java)")
	}
	srv := startServer(t, true)
	// The source-file launcher compiles Compat.java in memory: no javac
	// step and no class files to clean up.
	runClient(t, java, "-cp", jdbcJar, "clients/jdbc/Compat.java", srv.host, strconv.Itoa(srv.port), srv.password)
}
