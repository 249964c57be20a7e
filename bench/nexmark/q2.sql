-- Nexmark q2: selection. The bids on every 123rd auction; a stateless
-- filter.
--
-- Changes from the standard query: Flink's MOD(auction, 123) = 0 is written
-- auction % 123 = 0 (the same in PostgreSQL). RisingWave's variant lists five
-- fixed auction ids chosen for its own generator's id space; ours differs,
-- so we keep Flink's predicate.
SELECT auction, price
FROM bid
WHERE auction % 123 = 0
