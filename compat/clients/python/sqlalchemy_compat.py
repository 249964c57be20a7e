"""SQLAlchemy (with psycopg2) against streamdb (or PostgreSQL): create_all
and drop_all (DDL inside SQLAlchemy's transaction), full reflection of
tables, views and materialized views (get_columns, which calls
pg_get_serial_sequence; get_pk_constraint, get_unique_constraints and
get_indexes, which select several set-returning functions at once),
autoload, and ORM-style writes. Usage: sqlalchemy_compat.py URL"""
import sys

import sqlalchemy as sa

from common import check, finish, run

URL = sys.argv[1]

engine = sa.create_engine(URL, future=True)
meta = sa.MetaData()
users = sa.Table("sa_users", meta,
                 sa.Column("id", sa.Integer, primary_key=True),
                 sa.Column("email", sa.String(120), nullable=False, unique=True),
                 sa.Column("name", sa.Text),
                 sa.Column("karma", sa.Numeric(10, 2), server_default="0"),
                 sa.Column("created", sa.DateTime(timezone=True)))
orders = sa.Table("sa_orders", meta,
                  sa.Column("order_id", sa.BigInteger, primary_key=True),
                  sa.Column("line", sa.Integer, primary_key=True),
                  sa.Column("user_id", sa.Integer, nullable=False),
                  sa.Column("amount", sa.Float),
                  sa.Index("sa_orders_user", "user_id", "amount"))


def create_all():
    meta.drop_all(engine)
    meta.create_all(engine)
    with engine.begin() as c:
        c.execute(users.insert(), [{"id": i, "email": "u%d@x" % i, "name": "user %d" % i} for i in range(1, 6)])
        c.execute(orders.insert(), [{"order_id": i // 3, "line": i % 3, "user_id": 1 + i % 5, "amount": i * 1.5} for i in range(30)])
        c.execute(sa.text("CREATE VIEW sa_big AS SELECT order_id, sum(amount) AS total FROM sa_orders GROUP BY order_id HAVING sum(amount) > 20"))
        c.execute(sa.text("CREATE MATERIALIZED VIEW sa_spend AS SELECT u.name, count(*) AS n FROM sa_users u JOIN sa_orders o ON o.user_id = u.id GROUP BY u.name"))
    check("sqlalchemy create_all", True)


def reflection():
    insp = sa.inspect(engine)
    tables = insp.get_table_names()
    check("sqlalchemy get_table_names", {"sa_users", "sa_orders"} <= set(tables), repr(tables))
    views = insp.get_view_names()
    check("sqlalchemy get_view_names", "sa_big" in views, repr(views))
    mviews = insp.get_view_names(include=("materialized",))
    check("sqlalchemy get_view_names materialized", "sa_spend" in mviews, repr(mviews))
    cols = {c["name"]: c for c in insp.get_columns("sa_users")}
    check("sqlalchemy get_columns", list(cols) == ["id", "email", "name", "karma", "created"], repr(list(cols)))
    check("sqlalchemy column types", isinstance(cols["email"]["type"], sa.String) and cols["email"]["type"].length == 120
          and isinstance(cols["karma"]["type"], sa.Numeric) and not cols["email"]["nullable"], repr(cols["email"]))
    check("sqlalchemy serial default", "nextval" in str(cols["id"].get("default")) or cols["id"].get("autoincrement") is True,
          repr(cols["id"]))
    pk = insp.get_pk_constraint("sa_orders")
    check("sqlalchemy get_pk_constraint", pk["constrained_columns"] == ["order_id", "line"], repr(pk))
    uniques = insp.get_unique_constraints("sa_users")
    check("sqlalchemy get_unique_constraints", [u["column_names"] for u in uniques] == [["email"]], repr(uniques))
    indexes = {i["name"]: i for i in insp.get_indexes("sa_orders")}
    check("sqlalchemy get_indexes", indexes.get("sa_orders_user", {}).get("column_names") == ["user_id", "amount"], repr(indexes))
    check("sqlalchemy get_foreign_keys", insp.get_foreign_keys("sa_orders") == [], "")
    vcols = [c["name"] for c in insp.get_columns("sa_big")]
    check("sqlalchemy view columns", vcols == ["order_id", "total"], repr(vcols))
    mcols = [c["name"] for c in insp.get_columns("sa_spend")]
    check("sqlalchemy materialized view columns", mcols == ["name", "n"], repr(mcols))
    definition = insp.get_view_definition("sa_big")
    check("sqlalchemy get_view_definition", "sa_orders" in (definition or ""), repr(definition))


def autoload():
    m = sa.MetaData()
    t = sa.Table("sa_users", m, autoload_with=engine)
    check("sqlalchemy autoload columns", [c.name for c in t.columns] == ["id", "email", "name", "karma", "created"],
          repr(t.columns))
    check("sqlalchemy autoload primary key", [c.name for c in t.primary_key] == ["id"], repr(t.primary_key))
    m.reflect(bind=engine, views=True)
    check("sqlalchemy reflect all", {"sa_users", "sa_orders", "sa_big", "sa_spend"} <= set(m.tables), repr(list(m.tables)))
    with engine.connect() as c:
        n = c.execute(sa.select(sa.func.count()).select_from(t).where(t.c.email.like("u%"))).scalar()
        check("sqlalchemy select through autoloaded table", n == 5, repr(n))
        v = sa.Table("sa_spend", sa.MetaData(), autoload_with=engine)
        rows = c.execute(sa.select(v).order_by(v.c.name)).all()
        check("sqlalchemy read a reflected materialized view", len(rows) == 5 and rows[0].n == 6, repr(rows))


def writes():
    with engine.begin() as c:
        c.execute(users.update().where(users.c.id == 1).values(name="first"))
        c.execute(users.delete().where(users.c.id == 5))
    with engine.connect() as c:
        got = c.execute(sa.select(users.c.name).where(users.c.id <= 2).order_by(users.c.id)).scalars().all()
        check("sqlalchemy update and delete", got == ["first", "user 2"], repr(got))
    try:
        with engine.begin() as c:
            c.execute(users.insert().values(id=1, email="dup@x"))
        check("sqlalchemy integrity error", False, "no error")
    except sa.exc.IntegrityError:
        check("sqlalchemy integrity error", True)


def drop_all():
    with engine.begin() as c:
        c.execute(sa.text("DROP MATERIALIZED VIEW sa_spend"))
        c.execute(sa.text("DROP VIEW sa_big"))
    meta.drop_all(engine)
    left = set(sa.inspect(engine).get_table_names()) & {"sa_users", "sa_orders"}
    check("sqlalchemy drop_all", not left, repr(left))


run("sqlalchemy create_all", create_all)
run("sqlalchemy reflection", reflection)
run("sqlalchemy autoload", autoload)
run("sqlalchemy writes", writes)
run("sqlalchemy drop_all", drop_all)
finish()
