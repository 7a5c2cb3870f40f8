#!/usr/bin/env python3
"""Test tooling: splits a world's dumps by shard, as a cluster's export job writes them for
`screen --shard I/N --split-dumps` (docs/ledger.md, "Dumps split by shard").

    scripts/split-dumps-by-shard.py N OUT_DIR DUMP...

Each DUMP (CSV, JSON Lines or mysqldump XML, gzipped when its name ends in .gz) becomes
OUT_DIR/shard-I/NAME for I = 1..N, holding the records whose order id hashes to shard I:
fnv1a64(UTF-8 order_id) mod N = I - 1, the hash `screen --shard` uses. A CSV keeps its header
in every part; an XML dump its lines before the first <row> and after the last </row>; records
are copied byte for byte. Only the layouts the sample worlds write are known: a record it cannot
place (no order id found) stops it with exit 1, naming the file and line.
"""
import csv
import gzip
import io
import json
import os
import re
import sys

ORDER_ID_NAMES = ("order_id", "orderId", "order_no")


def fnv1a64(text):
    h = 0xCBF29CE484222325
    for b in text.encode("utf-8"):
        h ^= b
        h = (h * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


def opener(path, mode):
    return gzip.open(path, mode, compresslevel=1) if path.endswith(".gz") else open(path, mode)


def fail(path, line, why):
    sys.exit(f"split-dumps-by-shard: {path}:{line}: {why}")


def split_csv(path, outs, n):
    with opener(path, "rb") as f:
        text = io.TextIOWrapper(f, encoding="utf-8", newline="")
        header_line = text.readline()
        header = next(csv.reader([header_line]))
        column = next((header.index(c) for c in ORDER_ID_NAMES if c in header), None)
        if column is None:
            fail(path, 1, "no order id column")
        for o in outs:
            o.write(header_line.encode("utf-8"))
        line = 1
        for raw in text:
            line += 1
            # The sample worlds quote no newline: one record a line.
            fields = next(csv.reader([raw]))
            if len(fields) <= column:
                fail(path, line, "a record without its order id")
            outs[fnv1a64(fields[column]) % n].write(raw.encode("utf-8"))


def split_jsonl(path, outs, n):
    with opener(path, "rb") as f:
        for line, raw in enumerate(f, 1):
            if not raw.strip():
                continue
            record = json.loads(raw)
            order = next((record[c] for c in ORDER_ID_NAMES if isinstance(record.get(c), str)), None)
            if order is None:
                fail(path, line, "a record without its order id")
            outs[fnv1a64(order) % n].write(raw)


FIELD = re.compile(rb'<field name="(' + b"|".join(c.encode() for c in ORDER_ID_NAMES) + rb')">([^<]*)</field>')


def split_xml(path, outs, n):
    with opener(path, "rb") as f:
        lines = f.readlines()
    starts = [i for i, l in enumerate(lines) if l.strip() == b"<row>"]
    ends = [i for i, l in enumerate(lines) if l.strip() == b"</row>"]
    if len(starts) != len(ends):
        fail(path, 1, "rows that do not close")
    head = lines[: starts[0]] if starts else lines
    tail = lines[ends[-1] + 1 :] if ends else []
    parts = [list(head) for _ in outs]
    for s, e in zip(starts, ends):
        row = b"".join(lines[s : e + 1])
        m = FIELD.search(row)
        if m is None:
            fail(path, s + 1, "a row without its order id")
        order = m.group(2).decode("utf-8").replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">")
        parts[fnv1a64(order) % n].append(row)
    for o, p in zip(outs, parts):
        o.write(b"".join(p + tail))


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    n = int(sys.argv[1])
    out_dir = sys.argv[2]
    for path in sys.argv[3:]:
        name = os.path.basename(path)
        plain = name[:-3] if name.endswith(".gz") else name
        outs = []
        for i in range(1, n + 1):
            os.makedirs(os.path.join(out_dir, f"shard-{i}"), exist_ok=True)
            outs.append(opener(os.path.join(out_dir, f"shard-{i}", name), "wb"))
        if plain.endswith(".csv"):
            split_csv(path, outs, n)
        elif plain.endswith(".jsonl"):
            split_jsonl(path, outs, n)
        elif plain.endswith(".xml"):
            split_xml(path, outs, n)
        else:
            sys.exit(f"split-dumps-by-shard: {path}: not a .csv, .jsonl or .xml dump")
        for o in outs:
            o.close()


if __name__ == "__main__":
    main()
