"""LISTEN/NOTIFY across two psycopg2 sessions: delivery on commit only,
none after a rollback, duplicates within a transaction folded, the
sender's PID, UNLISTEN. Usage: listen_psycopg2.py DSN"""
import select
import sys
import time

import psycopg2

from common import check, finish, run

DSN = sys.argv[1]


def wait_notifies(conn, want, timeout=5.0):
    """Polls conn until it has want notifications or timeout passes."""
    deadline = time.time() + timeout
    while len(conn.notifies) < want and time.time() < deadline:
        if select.select([conn], [], [], 0.2) != ([], [], []):
            conn.poll()
    got = [(n.channel, n.payload, n.pid) for n in conn.notifies]
    conn.notifies.clear()
    return got


def main():
    listener = psycopg2.connect(DSN)
    listener.autocommit = True
    sender = psycopg2.connect(DSN)
    lc, sc = listener.cursor(), sender.cursor()
    lc.execute("LISTEN jobs")
    sc.execute("SELECT pg_backend_pid()")
    spid = sc.fetchone()[0]
    sc.execute("NOTIFY jobs, 'one'")
    check("psycopg2 no notification before commit", wait_notifies(listener, 1, 0.5) == [], "")
    sender.commit()
    check("psycopg2 notification on commit", wait_notifies(listener, 1) == [("jobs", "one", spid)], "")
    sc.execute("SELECT pg_notify('jobs', 'rolled back')")
    sender.rollback()
    check("psycopg2 no notification after rollback", wait_notifies(listener, 1, 0.5) == [], "")
    sc.execute("NOTIFY jobs, 'dup'")
    sc.execute("NOTIFY jobs, 'dup'")
    sc.execute("NOTIFY jobs, 'two'")
    sc.execute("NOTIFY other, 'not listened'")
    sender.commit()
    got = wait_notifies(listener, 2)
    check("psycopg2 duplicates folded, order kept", got == [("jobs", "dup", spid), ("jobs", "two", spid)], repr(got))
    lc.execute("UNLISTEN jobs")
    sc.execute("NOTIFY jobs, 'after unlisten'")
    sender.commit()
    check("psycopg2 nothing after UNLISTEN", wait_notifies(listener, 1, 0.5) == [], "")
    listener.close()
    sender.close()


run("psycopg2 listen", main)
finish()
