-- Nexmark q3: local item suggestion. Sellers in Oregon, Idaho or California
-- and their auctions in category 10; an incrementally maintained join.
--
-- Changes from the standard query: none. The generator's states are upper
-- case, as in Flink's ('OR', 'ID', 'CA'; RisingWave lower-cases them).
SELECT p.name, p.city, p.state, a.id
FROM auction AS a
JOIN person AS p ON a.seller = p.id
WHERE a.category = 10
  AND (p.state = 'OR' OR p.state = 'ID' OR p.state = 'CA')
