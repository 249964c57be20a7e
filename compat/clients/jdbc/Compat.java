// Compat exercises the PostgreSQL JDBC driver against streamdb: connect
// with SCRAM-SHA-256 (plain and TLS), a wrong password, DDL, PreparedStatement writes, every type read back,
// DatabaseMetaData (tables, columns, keys, indexes, schemas, types),
// SQLSTATEs and cancel. It prints one line per check:
// "ok <name>" or "FAIL <name>: <reason>".
import java.sql.*;
import java.util.*;

public class Compat {
    static String base;
    static int failures = 0;

    static void check(String name, boolean ok, String detail) {
        if (ok) {
            System.out.println("ok " + name);
        } else {
            failures++;
            System.out.println("FAIL " + name + ": " + detail);
        }
    }

    static String rows(ResultSet rs, String... cols) throws SQLException {
        StringBuilder sb = new StringBuilder();
        while (rs.next()) {
            if (sb.length() > 0) sb.append(";");
            for (int i = 0; i < cols.length; i++) {
                if (i > 0) sb.append("|");
                sb.append(rs.getString(cols[i]));
            }
        }
        return sb.toString();
    }

    // subscribe reads a subscription as Materialize documents it for
    // JDBC: DECLARE … CURSOR FOR SUBSCRIBE in a transaction, then FETCH …
    // WITH (timeout) with executeQuery, while another connection writes.
    static void subscribe(Properties p) throws SQLException {
        try (Connection w = DriverManager.getConnection(base, p); Connection c = DriverManager.getConnection(base, p)) {
            try (Statement s = w.createStatement()) {
                s.execute("CREATE TABLE jsub (id int PRIMARY KEY, v text)");
                s.execute("INSERT INTO jsub VALUES (1, 'a')");
            }
            c.setAutoCommit(false);
            try (Statement s = c.createStatement()) {
                s.execute("DECLARE c CURSOR FOR SUBSCRIBE jsub");
                String snap = fetchAll(s, "FETCH ALL c WITH (timeout = '5s')");
                check("subscribe snapshot", snap.equals("1|1|a"), snap);
                try (Statement ws = w.createStatement()) {
                    ws.execute("UPDATE jsub SET v = 'b' WHERE id = 1");
                }
                String upd = fetchAll(s, "FETCH ALL c WITH (timeout = '5s')");
                check("subscribe update", upd.equals("-1|1|a;1|1|b"), upd);
                String idle = fetchAll(s, "FETCH ALL c WITH (timeout = '200ms')");
                check("fetch timeout", idle.isEmpty(), idle);
            }
            c.commit();
            try (Statement s = w.createStatement()) {
                s.execute("DROP TABLE jsub");
            }
        }
    }

    // fetchAll renders a FETCH's rows but their mz_timestamp, checking that
    // the column is there.
    static String fetchAll(Statement s, String sql) throws SQLException {
        StringBuilder sb = new StringBuilder();
        try (ResultSet rs = s.executeQuery(sql)) {
            if (!rs.getMetaData().getColumnName(1).equals("mz_timestamp")) {
                return "first column " + rs.getMetaData().getColumnName(1);
            }
            while (rs.next()) {
                if (sb.length() > 0) {
                    sb.append(';');
                }
                sb.append(rs.getLong(2)).append('|').append(rs.getInt(3)).append('|').append(rs.getString(4));
            }
        }
        return sb.toString();
    }

    public static void main(String[] args) throws Exception {
        base = "jdbc:postgresql://" + args[0] + ":" + args[1] + "/streamdb";
        String password = args[2];
        Properties wrong = new Properties();
        wrong.setProperty("user", "streamdb");
        wrong.setProperty("password", "wrong" + password);
        wrong.setProperty("sslmode", "disable");
        try (Connection c = DriverManager.getConnection(base, wrong)) {
            check("wrong password", false, "connected");
        } catch (SQLException e) {
            check("wrong password", "28P01".equals(e.getSQLState()) && e.getMessage().contains("password authentication failed for user \"streamdb\""),
                e.getSQLState() + " " + e.getMessage());
        }
        Properties p = new Properties();
        p.setProperty("user", "streamdb");
        p.setProperty("password", password);
        p.setProperty("sslmode", "disable");
        subscribe(p);
        try (Connection c = DriverManager.getConnection(base, p)) {
            check("connect", c.isValid(5), "not valid");
            try (Statement s = c.createStatement()) {
                s.execute("CREATE TABLE jorders (id int PRIMARY KEY, customer text NOT NULL, amount numeric(10,2), placed timestamptz)");
                s.execute("CREATE MATERIALIZED VIEW jspend AS SELECT customer, sum(amount) AS total FROM jorders GROUP BY customer");
                s.execute("CREATE TABLE jtypes (b boolean, i2 smallint, i4 int, i8 bigint, f4 real, f8 double precision, n numeric(8,3), t text, vc varchar(5), d date, ts timestamp, tstz timestamptz, u uuid, jb jsonb, ai int[], by bytea)");
                s.execute("INSERT INTO jtypes VALUES (true, 2, 4, 8, 1.5, 2.25, 12.345, 'text', 'vc', '2024-02-29', '2024-02-29 12:34:56', '2024-02-29 12:34:56+00', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '{\"a\": 1}', '{1,2}', '\\x0102')");
            }
            check("ddl", true, "");
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO jorders VALUES (?, ?, ?, ?)")) {
                for (int i = 1; i <= 3; i++) {
                    ps.setInt(1, i);
                    ps.setString(2, i % 2 == 0 ? "bob" : "ada");
                    ps.setBigDecimal(3, new java.math.BigDecimal(i + ".50"));
                    ps.setTimestamp(4, Timestamp.valueOf("2024-01-0" + i + " 10:00:00"));
                    ps.addBatch();
                }
                int[] n = ps.executeBatch();
                check("prepared batch insert", n.length == 3, Arrays.toString(n));
            }
            try (PreparedStatement ps = c.prepareStatement("SELECT total FROM jspend WHERE customer = ?")) {
                ps.setString(1, "ada");
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    check("read materialized view", rs.getBigDecimal(1).toString().equals("5.00"), rs.getString(1));
                }
            }
            try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT * FROM jtypes")) {
                rs.next();
                String got = rs.getBoolean("b") + " " + rs.getShort("i2") + " " + rs.getInt("i4") + " " + rs.getLong("i8") + " " +
                    rs.getFloat("f4") + " " + rs.getDouble("f8") + " " + rs.getBigDecimal("n") + " " + rs.getString("t") + " " +
                    rs.getString("vc") + " " + rs.getDate("d") + " " + rs.getTimestamp("ts") + " " + rs.getString("tstz") + " " +
                    rs.getObject("u") + " " + rs.getString("jb") + " " + Arrays.toString((Integer[]) rs.getArray("ai").getArray()) + " " +
                    Arrays.toString(rs.getBytes("by"));
                String want = "true 2 4 8 1.5 2.25 12.345 text vc 2024-02-29 2024-02-29 12:34:56.0 2024-02-29 12:34:56+00 a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11 {\"a\": 1} [1, 2] [1, 2]";
                check("every type", got.equals(want), got);
            }
            DatabaseMetaData md = c.getMetaData();
            check("metadata product", md.getDatabaseProductName().equals("PostgreSQL"), md.getDatabaseProductName());
            try (ResultSet rs = md.getTables(null, "public", "j%", new String[] {"TABLE", "VIEW", "MATERIALIZED VIEW"})) {
                String got = rows(rs, "TABLE_NAME", "TABLE_TYPE");
                check("getTables", got.equals("jspend|MATERIALIZED VIEW;jorders|TABLE;jtypes|TABLE"), got);
            }
            try (ResultSet rs = md.getColumns(null, "public", "jorders", null)) {
                String got = rows(rs, "COLUMN_NAME", "TYPE_NAME", "IS_NULLABLE", "ORDINAL_POSITION");
                check("getColumns", got.equals("id|int4|NO|1;customer|text|NO|2;amount|numeric|YES|3;placed|timestamptz|YES|4"), got);
            }
            try (ResultSet rs = md.getPrimaryKeys(null, "public", "jorders")) {
                String got = rows(rs, "COLUMN_NAME", "KEY_SEQ", "PK_NAME");
                check("getPrimaryKeys", got.equals("id|1|jorders_pkey"), got);
            } catch (SQLException e) {
                check("getPrimaryKeys", false, e.getSQLState() + " " + e.getMessage());
            }
            try (ResultSet rs = md.getIndexInfo(null, "public", "jorders", false, false)) {
                String got = rows(rs, "INDEX_NAME", "COLUMN_NAME", "ORDINAL_POSITION", "NON_UNIQUE");
                check("getIndexInfo", got.equals("jorders_pkey|id|1|f"), got);
            } catch (SQLException e) {
                check("getIndexInfo", false, e.getSQLState() + " " + e.getMessage());
            }
            try (ResultSet rs = md.getSchemas()) {
                String got = rows(rs, "TABLE_SCHEM");
                check("getSchemas", got.equals("information_schema;pg_catalog;public"), got);
            } catch (SQLException e) {
                check("getSchemas", false, e.getSQLState() + " " + e.getMessage());
            }
            try (ResultSet rs = md.getTypeInfo()) {
                Set<String> names = new HashSet<>();
                while (rs.next()) names.add(rs.getString("TYPE_NAME"));
                check("getTypeInfo", names.containsAll(Arrays.asList("int4", "text", "numeric", "timestamptz", "jsonb", "_int4")), names.toString());
            } catch (SQLException e) {
                check("getTypeInfo", false, e.getSQLState() + " " + e.getMessage());
            }
            String[][] errors = {
                {"INSERT INTO jorders VALUES (1, 'dup', 1, NULL)", "23505"},
                {"SELECT * FROM nope", "42P01"},
                {"SELECT 1/0", "22012"},
            };
            for (String[] e : errors) {
                try (Statement s = c.createStatement()) {
                    s.execute(e[0]);
                    check("error " + e[1], false, "no error");
                } catch (SQLException ex) {
                    check("error " + e[1], e[1].equals(ex.getSQLState()), ex.getSQLState() + " " + ex.getMessage());
                }
            }
            try (Statement s = c.createStatement()) {
                new Thread(() -> {
                    try {
                        Thread.sleep(300);
                        s.cancel();
                    } catch (Exception ignored) {
                    }
                }).start();
                s.execute("SELECT count(*) FROM generate_series(1, 3000) a, generate_series(1, 3000) b");
                check("cancel", false, "query finished");
            } catch (SQLException ex) {
                check("cancel", "57014".equals(ex.getSQLState()), ex.getSQLState() + " " + ex.getMessage());
            }
            check("connection after cancel", c.isValid(5), "not valid");
        }
        Properties tls = new Properties();
        tls.setProperty("user", "streamdb");
        tls.setProperty("password", password);
        tls.setProperty("ssl", "true");
        tls.setProperty("sslmode", "require");
        try (Connection c = DriverManager.getConnection(base, tls); Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT 1")) {
            rs.next();
            check("ssl=true sslmode=require", rs.getInt(1) == 1, "");
        } catch (SQLException e) {
            check("ssl=true sslmode=require", false, e.getSQLState() + " " + e.getMessage());
        }
        System.exit(failures == 0 ? 0 : 1);
    }
}
