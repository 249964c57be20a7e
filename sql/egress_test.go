package sql_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/streamdb/streamdb/internal/egress"
	"github.com/streamdb/streamdb/internal/testserver"
)

// TestEgressAllowList checks --allow-egress at CREATE CONNECTION: a
// destination outside the list is refused with 42501 naming only the
// address, before anything is dialed; one inside it is accepted.
func TestEgressAllowList(t *testing.T) {
	policy, err := egress.Parse("127.0.0.1, kafka.internal, 10.1.0.0/16")
	if err != nil {
		t.Fatal(err)
	}
	srv := testserver.Start(t, testserver.Options{Egress: policy})
	conn := connect(t, srv.URL)
	ctx := context.Background()
	for _, tc := range []struct {
		broker string
		ok     bool
	}{
		{"127.0.0.1:9092", true},
		{"kafka.internal:9092", true},
		{"10.1.2.3:9092", true},
		{"10.2.0.1:9092", false},
		{"192.0.2.7:22", false},
		{"[::1]:9092", false},
		{"127.0.0.2:9092", false},
	} {
		name := "c" + strings.NewReplacer(".", "_", ":", "_", "[", "", "]", "").Replace(tc.broker)
		_, err := conn.Exec(ctx, "CREATE CONNECTION "+name+" TO KAFKA (BROKER '"+tc.broker+"')")
		var pe *pgconn.PgError
		switch {
		case tc.ok && err != nil:
			t.Errorf("%s: %v", tc.broker, err)
		case !tc.ok && (!errors.As(err, &pe) || pe.Code != "42501" || pe.Message != "connecting to "+tc.broker+" is not allowed"):
			t.Errorf("%s: %v, want 42501", tc.broker, err)
		}
	}
	exec(t, conn, "CREATE SECRET pgpw AS 'x'")
	_, err = conn.Exec(ctx, "CREATE CONNECTION pg TO POSTGRES (HOST '192.0.2.7', USER 'u', PASSWORD SECRET pgpw, DATABASE 'd')")
	if sqlState(err) != "42501" || !strings.Contains(err.Error(), "connecting to 192.0.2.7:5432 is not allowed") {
		t.Errorf("a PostgreSQL connection outside the list: %v", err)
	}
	if got := rows(t, conn, "SHOW CONNECTIONS"); got != "c10_1_2_3_9092|kafka\nc127_0_0_1_9092|kafka\nckafka_internal_9092|kafka" {
		t.Errorf("SHOW CONNECTIONS:\n%s", got)
	}
}
