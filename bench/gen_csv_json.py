#!/usr/bin/env python3
"""gen_csv_json.py — writes a CSV file (with a header) and a JSON-lines file of about MB
megabytes each, with the same rows: id (long), name (string, some quoted with a comma), price
(double), qty (int), day (date), ok (boolean), note (string, some empty / null). For
bench/csv_json_parse.sh. Usage: gen_csv_json.py OUT.csv OUT.json MB
"""
import json
import random
import sys

csv_path, json_path, mb = sys.argv[1], sys.argv[2], float(sys.argv[3])
rnd = random.Random(7)
words = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa"]
target = int(mb * 1e6)
with open(csv_path, "w") as c, open(json_path, "w") as j:
    c.write("id,name,price,qty,day,ok,note\n")
    size_c = size_j = 0
    i = 0
    while size_c < target or size_j < target:
        rows_c, rows_j = [], []
        for _ in range(10000):
            name = rnd.choice(words) + " " + rnd.choice(words)
            quoted = '"%s, %s"' % (name, rnd.choice(words)) if i % 7 == 0 else name
            price = round(rnd.random() * 1000, 2)
            qty = rnd.randint(0, 100000)
            day = "20%02d-%02d-%02d" % (rnd.randint(0, 24), rnd.randint(1, 12), rnd.randint(1, 28))
            ok = "true" if i % 3 else "false"
            note = "" if i % 5 == 0 else rnd.choice(words) * rnd.randint(1, 4)
            rows_c.append("%d,%s,%s,%d,%s,%s,%s\n" % (i, quoted, price, qty, day, ok, note))
            rows_j.append(json.dumps({"id": i, "name": name, "price": price, "qty": qty, "day": day,
                                      "ok": ok == "true", "note": note or None}) + "\n")
            i += 1
        if size_c < target:
            s = "".join(rows_c)
            c.write(s)
            size_c += len(s)
        if size_j < target:
            s = "".join(rows_j)
            j.write(s)
            size_j += len(s)
