\set aid random(1, 100000)
SELECT abalance FROM acct WHERE aid = :aid;
