-- Nexmark q8: monitor new users. People who created an auction in the same
-- 10-second tumbling window in which they registered.
--
-- Changes from the standard query: TUMBLE(..., 10 s) becomes a GROUP BY on
-- date_bin('10 s', date_time, epoch); window_end is dropped from the join
-- because it is window_start + 10 s on both sides.
SELECT p.id, p.name, p.starttime
FROM (
    SELECT id, name,
           date_bin(INTERVAL '10 seconds', date_time, TIMESTAMP '1970-01-01') AS starttime
    FROM person
    GROUP BY id, name, date_bin(INTERVAL '10 seconds', date_time, TIMESTAMP '1970-01-01')
) AS p
JOIN (
    SELECT seller,
           date_bin(INTERVAL '10 seconds', date_time, TIMESTAMP '1970-01-01') AS starttime
    FROM auction
    GROUP BY seller, date_bin(INTERVAL '10 seconds', date_time, TIMESTAMP '1970-01-01')
) AS a ON p.id = a.seller AND p.starttime = a.starttime
