"""The statements dbt-postgres's macros send, replayed with psycopg2 in
dbt's transaction style (each model in BEGIN … COMMIT, the old relation
dropped after): seed, then run of a view, a table and a materialized
view model twice (the second run renames the old relation to a backup
and drops it; a materialized view is refreshed), then dbt test's
queries. dbt itself is not packaged; the sequences follow dbt-postgres's
create_schema, seed (create_csv_table, load_csv_rows), view and table
materializations (create_view_as, create_table_as, rename_relation,
drop_relation) and the materialized view materialization of dbt 1.6.
Usage: dbt_replay.py DSN DATABASE"""
import sys

import psycopg2

from common import check, finish, run

DSN, DB = sys.argv[1], sys.argv[2]


def rel(name):
    return '"%s"."public"."%s"' % (DB, name)


def block(conn, *stmts):
    """One dbt transaction: BEGIN, the statements, COMMIT."""
    with conn.cursor() as c:
        for s in stmts:
            c.execute(s)
    conn.commit()


def exists(conn, name):
    with conn.cursor() as c:
        c.execute("select count(*) from pg_class c join pg_namespace n on n.oid = c.relnamespace "
                  "where n.nspname = 'public' and c.relname = %s", (name,))
        return c.fetchone()[0] == 1


def query(conn, sql):
    with conn.cursor() as c:
        c.execute(sql)
        rows = c.fetchall()
    conn.commit()
    return rows


def relations(conn):
    """dbt's postgres__list_relations_without_caching."""
    return query(conn, """select '%s' as database, tablename as name, schemaname as schema, 'table' as type
        from pg_tables where schemaname ilike 'public'
        union all select '%s' as database, viewname as name, schemaname as schema, 'view' as type
        from pg_views where schemaname ilike 'public'
        union all select '%s' as database, matviewname as name, schemaname as schema, 'materialized_view' as type
        from pg_matviews where schemaname ilike 'public'""" % (DB, DB, DB))


def seed(conn):
    block(conn, 'create schema if not exists "public"')
    block(conn,
          "create table %s (\"id\" integer,\"name\" text,\"amount\" numeric)" % rel("dbt_orders"),
          "insert into %s (id, name, amount) values (1,'ada',12.5),(2,'bob',3.99),(3,'ada',7.25)" % rel("dbt_orders"))
    check("dbt seed", query(conn, "select count(*) from %s" % rel("dbt_orders")) == [(3,)], "")
    # A second seed truncates and reloads: dbt-postgres sends truncate,
    # streamdb's answer for which is delete.
    block(conn, "delete from %s" % rel("dbt_orders"),
          "insert into %s (id, name, amount) values (1,'ada',12.5),(2,'bob',3.99),(3,'ada',7.25),(4,'cy',1)" % rel("dbt_orders"))
    check("dbt seed again", query(conn, "select count(*) from %s" % rel("dbt_orders")) == [(4,)], "")


def view_model(conn, attempt):
    name = "dbt_customers"
    sql = "select name, sum(amount) as total from %s group by name" % rel("dbt_orders")
    old = exists(conn, name)
    stmts = ['drop view if exists %s cascade' % rel(name + "__dbt_tmp"),
             'drop view if exists %s cascade' % rel(name + "__dbt_backup"),
             'create view %s as (\n    %s\n  )' % (rel(name + "__dbt_tmp"), sql)]
    if old:
        stmts.append('alter table %s rename to "%s__dbt_backup"' % (rel(name), name))
    stmts.append('alter table %s rename to "%s"' % (rel(name + "__dbt_tmp"), name))
    block(conn, *stmts)
    block(conn, 'drop view if exists %s cascade' % rel(name + "__dbt_backup"))
    got = query(conn, "select name, total from %s order by name" % rel(name))
    check("dbt run view model (%s)" % attempt, [r[0] for r in got] == ["ada", "bob", "cy"] and not exists(conn, name + "__dbt_backup"),
          repr(got))


def table_model(conn, attempt):
    name = "dbt_big_orders"
    sql = "select id, amount from %s where amount > 5" % rel("dbt_orders")
    old = exists(conn, name)
    stmts = ['drop table if exists %s cascade' % rel(name + "__dbt_tmp"),
             'drop table if exists %s cascade' % rel(name + "__dbt_backup"),
             'create  table %s\n  as\n  (\n    %s\n  );' % (rel(name + "__dbt_tmp"), sql)]
    if old:
        stmts.append('alter table %s rename to "%s__dbt_backup"' % (rel(name), name))
    stmts.append('alter table %s rename to "%s"' % (rel(name + "__dbt_tmp"), name))
    block(conn, *stmts)
    block(conn, 'drop table if exists %s cascade' % rel(name + "__dbt_backup"))
    got = query(conn, "select id from %s order by id" % rel(name))
    check("dbt run table model (%s)" % attempt, got == [(1,), (3,)] and not exists(conn, name + "__dbt_backup"), repr(got))


def materialized_view_model(conn, attempt):
    name = "dbt_counts"
    sql = "select name, count(*) as n from %s group by name" % rel("dbt_orders")
    if not exists(conn, name):
        block(conn, 'drop materialized view if exists %s cascade' % rel(name + "__dbt_tmp"),
              'drop materialized view if exists %s cascade' % rel(name + "__dbt_backup"),
              'create materialized view %s as %s' % (rel(name + "__dbt_tmp"), sql),
              'alter materialized view %s rename to "%s"' % (rel(name + "__dbt_tmp"), name))
    else:
        # dbt's on_configuration_change=apply with no change: refresh.
        block(conn, 'refresh materialized view %s' % rel(name))
    got = query(conn, "select name, n from %s order by name" % rel(name))
    check("dbt run materialized view model (%s)" % attempt, got == [("ada", 2), ("bob", 1), ("cy", 1)], repr(got))


def rolled_back_run(conn):
    """A run that fails half-way leaves the old relations as they were."""
    with conn.cursor() as c:
        c.execute('alter table %s rename to "dbt_big_orders__dbt_backup"' % rel("dbt_big_orders"))
        c.execute('drop table %s' % rel("dbt_big_orders__dbt_backup"))
        c.execute('drop view %s' % rel("dbt_customers"))
    conn.rollback()
    got = query(conn, "select id from %s order by id" % rel("dbt_big_orders"))
    check("dbt failed run rolled back", got == [(1,), (3,)] and exists(conn, "dbt_customers")
          and not exists(conn, "dbt_big_orders__dbt_backup"), repr(got))


def tests(conn):
    # dbt test: not_null and unique, as dbt's generic tests select them.
    got = query(conn, """select count(*) as failures, count(*) != 0 as should_warn, count(*) != 0 as should_error
        from (select * from %s where id is null) dbt_internal_test""" % rel("dbt_orders"))
    check("dbt test not_null", got == [(0, False, False)], repr(got))
    got = query(conn, """select count(*) as failures, count(*) != 0 as should_warn, count(*) != 0 as should_error
        from (select id as unique_field, count(*) as n_records from %s where id is not null
        group by id having count(*) > 1) dbt_internal_test""" % rel("dbt_orders"))
    check("dbt test unique", got == [(0, False, False)], repr(got))
    check("dbt list relations", {r[1] for r in relations(conn)} >= {"dbt_orders", "dbt_customers", "dbt_big_orders", "dbt_counts"},
          repr(relations(conn)))


def cleanup(conn):
    block(conn, 'drop materialized view if exists %s cascade' % rel("dbt_counts"),
          'drop view if exists %s cascade' % rel("dbt_customers"),
          'drop table if exists %s cascade' % rel("dbt_big_orders"),
          'drop table if exists %s cascade' % rel("dbt_orders"))


def main():
    conn = psycopg2.connect(DSN)
    cleanup(conn)
    seed(conn)
    for attempt in ("first run", "second run"):
        view_model(conn, attempt)
        table_model(conn, attempt)
        materialized_view_model(conn, attempt)
    rolled_back_run(conn)
    tests(conn)
    cleanup(conn)
    conn.close()


run("dbt replay", main)
finish()
