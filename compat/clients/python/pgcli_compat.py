"""pgcli's completion queries, run through pgcli's own PGExecute (the
queries its completion refresher sends at startup and after DDL): schemas,
tables, views and their columns, foreign keys, functions (pg_depend,
pg_language, 'trigger'::regtype), data types, databases, search_path,
and \\d-style view definitions. Usage: pgcli_compat.py HOST PORT USER
PASSWORD DATABASE"""
import sys

from pgcli.pgexecute import PGExecute

from common import check, finish, run

HOST, PORT, USER, PASSWORD, DB = sys.argv[1:6]


def main():
    ex = PGExecute(database=DB, user=USER, password=PASSWORD, host=HOST, port=int(PORT), dsn=None)
    list(ex.run("DROP VIEW IF EXISTS cli_v; DROP TABLE IF EXISTS cli_t; "
                "CREATE TABLE cli_t (id int PRIMARY KEY, name text); CREATE VIEW cli_v AS SELECT name FROM cli_t"))
    ex.conn.commit() if not ex.conn.autocommit else None
    schemata = list(ex.schemata())
    check("pgcli schemata", "public" in schemata, repr(schemata))
    tables = list(ex.tables())
    check("pgcli tables", ("public", "cli_t") in tables, repr(tables))
    views = list(ex.views())
    check("pgcli views", ("public", "cli_v") in views, repr(views))
    cols = [(c[1], c[2], c[3]) for c in ex.table_columns() if c[1] == "cli_t"]
    check("pgcli table_columns", [c[:2] for c in cols] == [("cli_t", "id"), ("cli_t", "name")], repr(cols))
    vcols = [(c[1], c[2]) for c in ex.view_columns() if c[1] == "cli_v"]
    check("pgcli view_columns", vcols == [("cli_v", "name")], repr(vcols))
    fks = list(ex.foreignkeys())
    check("pgcli foreignkeys", fks == [], repr(fks))
    funcs = list(ex.functions())
    names = {f.func_name for f in funcs}
    check("pgcli functions", {"lower", "generate_series", "now"} <= names, "%d functions" % len(funcs))
    types = list(ex.datatypes())
    check("pgcli datatypes", isinstance(types, list), repr(types[:3]))
    dbs = list(ex.databases())
    check("pgcli databases", DB in dbs, repr(dbs))
    check("pgcli search_path", "public" in ex.search_path(), repr(ex.search_path()))
    definition = ex.view_definition("cli_v")
    check("pgcli view_definition", "cli_t" in definition, repr(definition))
    list(ex.run("DROP VIEW cli_v; DROP TABLE cli_t"))


run("pgcli", main)
finish()
