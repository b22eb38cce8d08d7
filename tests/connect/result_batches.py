"""result_batches.py — the ArrowBatch responses of a large result stay under the server's
spark.connect.grpc.arrow.maxBatchSize (as Spark's, at most 70% of it each): run by
tests/connect/connect_sessions.sh against cspark-connect-server started with a small limit.

  result_batches.py URL MAX_BATCH_BYTES

Sends the ExecutePlan of a ~10 MB result through the pinned PySpark client's own stub (to see
each response), checks every batch's size, that the batches are many, that their row counts and
start offsets follow each other, and that the rows decoded from them are the query's.
"""
import sys

import pyarrow as pa
from pyspark.sql import SparkSession

url, limit = sys.argv[1], int(sys.argv[2])
spark = SparkSession.builder.remote(url).getOrCreate()
n = 20000  # 500-byte strings: ~10 MB, and each of the engine's batches over the limit
df = spark.range(0, n).selectExpr("id", "repeat('x', 500) AS s")
client = spark.client
req = client._execute_plan_request_with_metadata()
req.plan.CopyFrom(df._plan.to_proto(client))
sizes, offsets, total, ids = [], [], 0, 0
for resp in client._stub.ExecutePlan(req, metadata=client._builder.metadata()):
    if resp.HasField("arrow_batch"):
        b = resp.arrow_batch
        sizes.append(len(b.data))
        offsets.append((b.start_offset, b.row_count))
        table = pa.ipc.open_stream(b.data).read_all()
        if table.num_rows != b.row_count:
            print("FAIL: a batch says %d rows and holds %d" % (b.row_count, table.num_rows), file=sys.stderr)
            sys.exit(1)
        ids += sum(table.column("id").to_pylist())
        total += b.row_count
expected_offset = 0
for start, count in offsets:
    if start != expected_offset:
        print("FAIL: start offsets %r" % offsets[:10], file=sys.stderr)
        sys.exit(1)
    expected_offset += count
if total != n or ids != n * (n - 1) // 2:
    print("FAIL: %d rows, id sum %d" % (total, ids), file=sys.stderr)
    sys.exit(1)
if max(sizes) > limit * 7 // 10:
    print("FAIL: a batch of %d bytes over 70%% of %d" % (max(sizes), limit), file=sys.stderr)
    sys.exit(1)
if len(sizes) < 10:
    print("FAIL: only %d batches for ~10 MB at a %d-byte limit" % (len(sizes), limit), file=sys.stderr)
    sys.exit(1)
# the ordinary client path gets the same rows
pdf = df.toPandas()
if len(pdf) != n or int(pdf["id"].sum()) != n * (n - 1) // 2:
    print("FAIL: toPandas of the cut batches", file=sys.stderr)
    sys.exit(1)
spark.stop()
print("PASS result_batches: %d batches, largest %d bytes (limit %d)" % (len(sizes), max(sizes), limit))
