package sql_test

import (
	"context"
	"errors"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/streamdb/streamdb/internal/testserver"
)

// TestSystemCatalogs reads the system catalogs and calls the catalog
// functions over the wire, with the simple and extended protocols.
func TestSystemCatalogs(t *testing.T) {
	srv := testserver.Start(t, testserver.Options{})
	conn := connect(t, srv.URL)
	exec(t, conn, "CREATE TABLE orders (id int PRIMARY KEY, customer text NOT NULL, amount numeric(10,2) DEFAULT 0)")
	exec(t, conn, "CREATE INDEX orders_customer ON orders (customer)")
	exec(t, conn, "CREATE VIEW big AS SELECT id FROM orders WHERE amount > 100")
	exec(t, conn, "CREATE MATERIALIZED VIEW spend AS SELECT customer, sum(amount) AS total FROM orders GROUP BY customer")
	tests := []struct{ query, want string }{
		{"SELECT relname, relkind::text FROM pg_class WHERE relnamespace = 2200 ORDER BY relname",
			"big|v\norders|r\norders_customer|i\norders_pkey|i\nspend|m"},
		{"SELECT c.relname FROM pg_catalog.pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public' AND pg_table_is_visible(c.oid) AND c.relkind = 'r'", "orders"},
		{"SELECT attname, format_type(atttypid, atttypmod), attnotnull FROM pg_attribute WHERE attrelid = 'orders'::regclass AND attnum > 0 ORDER BY attnum",
			"id|integer|true\ncustomer|text|true\namount|numeric(10,2)|false"},
		{"SELECT 'orders'::regclass, 'orders'::regclass::oid >= 20000, 'pg_class'::regclass::oid, 23::regtype, 'int4'::regtype::oid", "orders|true|1259|integer|23"},
		{"SELECT pg_get_indexdef(indexrelid) FROM pg_index WHERE indrelid = 'orders'::regclass ORDER BY 1",
			"CREATE INDEX orders_customer ON public.orders USING btree (customer)\nCREATE UNIQUE INDEX orders_pkey ON public.orders USING btree (id)"},
		{"SELECT conname, pg_get_constraintdef(oid) FROM pg_constraint", "orders_pkey|PRIMARY KEY (id)"},
		{"SELECT pg_get_viewdef('big'::regclass)", " SELECT id FROM orders WHERE amount > 100;"},
		{"SELECT table_name, column_name, data_type FROM information_schema.columns WHERE table_name = 'spend' ORDER BY ordinal_position",
			"spend|customer|text\nspend|total|numeric"},
		{"SELECT current_setting('TimeZone'), current_setting('nope', true) IS NULL, set_config('application_name', 'x', false), current_setting('application_name')", "UTC|true|x|x"},
		{"SELECT has_table_privilege('orders', 'SELECT'), has_schema_privilege('public', 'USAGE'), has_database_privilege('streamdb', 'CONNECT')", "true|true|true"},
		{"SELECT pg_backend_pid() > 0, current_schemas(true), pg_encoding_to_char(6), quote_ident('a b')", `true|[pg_catalog public]|UTF8|"a b"`},
		{"SELECT count(*) > 20 FROM pg_type WHERE typname IN (SELECT typname FROM pg_type)", "true"},
		{"SELECT count(*) FROM pg_stat_activity WHERE pid = pg_backend_pid()", "1"},
		{"SELECT schemaname, matviewname FROM pg_matviews", "public|spend"},
		{"SELECT * FROM generate_subscripts(ARRAY['a','b'], 1)", "1\n2"},
	}
	for _, tt := range tests {
		if got := rows(t, conn, tt.query); got != tt.want {
			t.Errorf("%s:\n got %q\nwant %q", tt.query, got, tt.want)
		}
	}
	for _, tt := range []struct{ query, code string }{
		{"SELECT 'nope'::regclass", "42P01"},
		{"SELECT * FROM pg_catalog.pg_statistic", "42P01"},
		{"SELECT has_table_privilege('orders', 'FLY')", "22023"},
		{"CREATE VIEW cat AS SELECT relname FROM pg_class", "0A000"},
		{"SELECT current_setting('nope')", "42704"},
	} {
		_, err := conn.Exec(context.Background(), tt.query)
		var pe *pgconn.PgError
		if !errors.As(err, &pe) || pe.Code != tt.code {
			t.Errorf("%s: %v, want %s", tt.query, err, tt.code)
		}
	}
}
