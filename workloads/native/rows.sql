-- An SQLite workload that allocates millions of small objects through malloc: rows made
-- by a recursive CTE, an index built on them, grouped, joined and sorted, text built and
-- taken apart. `sqlite3 -cmd ".parameter set @rows N" :memory: ".read rows.sql"` prints a few summary lines whose values
-- depend only on this file. SQLite's page cache and lookaside are left at their defaults,
-- so most of its memory comes from malloc.
CREATE TABLE item(id INTEGER PRIMARY KEY, k INTEGER, name TEXT, payload TEXT);
WITH RECURSIVE seq(n, x) AS (
  SELECT 1, 42
  UNION ALL
  SELECT n + 1, (x * 1103515245 + 12345) % 2147483648 FROM seq WHERE n < @rows
)
INSERT INTO item(id, k, name, payload)
  SELECT n, x % 5000, printf('name-%d-%x', x % 100000, x), printf('%.*c', 10 + x % 60, 'p') FROM seq;
CREATE INDEX item_k ON item(k);
CREATE INDEX item_name ON item(name);
SELECT 'groups', count(*), sum(c), max(c) FROM (SELECT k, count(*) AS c FROM item GROUP BY k);
SELECT 'joined', count(*) FROM item a JOIN item b ON a.k = b.k AND a.id < b.id AND b.id - a.id < 50;
SELECT 'sorted', sum(length(name)) FROM (SELECT name FROM item ORDER BY payload, name DESC LIMIT @rows * 3 / 4);
SELECT 'text', sum(length(s)) FROM (SELECT group_concat(name, ',') AS s FROM item GROUP BY k % 97);
UPDATE item SET payload = upper(payload) || name WHERE k % 3 = 0;
DELETE FROM item WHERE k % 2 = 1;
SELECT 'left', count(*), sum(length(payload)) FROM item;
