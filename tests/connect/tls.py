"""tls.py — the PySpark client against cspark-connect-server with TLS (run by tests/connect/tls.sh,
with GRPC_DEFAULT_SSL_ROOTS_FILE_PATH naming the server's self-signed certificate, which gRPC
then trusts as its only root):

  tls.py tls URL            sc://HOST:PORT/;use_ssl=true[;token=...]: a query's rows come back
  tls.py plaintext HOST:PORT a plaintext gRPC call to the TLS port fails with a gRPC error
"""
import sys
import uuid

import grpc

mode, target = sys.argv[1], sys.argv[2]
if mode == "tls":
    from pyspark.sql import SparkSession

    spark = SparkSession.builder.remote(target).getOrCreate()
    rows = [tuple(r) for r in spark.sql("SELECT 1 AS one, 'tls' AS how").collect()]
    if rows != [(1, "tls")]:
        sys.exit("FAIL: %s: got %r" % (target, rows))
    rows = [tuple(r) for r in spark.range(3).collect()]  # a job, its rows over TLS too
    if rows != [(0,), (1,), (2,)]:
        sys.exit("FAIL: %s: spark.range(3) gave %r" % (target, rows))
    spark.stop()
    print("PASS tls %s" % target)
elif mode == "plaintext":
    import pyspark.sql.connect.proto as pb2

    req = pb2.ConfigRequest(session_id=str(uuid.uuid4()))
    req.operation.get_all.SetInParent()
    call = grpc.insecure_channel(target).unary_unary(
        "/spark.connect.SparkConnectService/Config")
    try:
        call(req.SerializeToString(), timeout=30)
    except grpc.RpcError as e:
        print("PASS plaintext refused: %s %s" % (e.code(), (e.details() or "")[:100]))
        sys.exit(0)
    sys.exit("FAIL: a plaintext call to the TLS port was answered")
else:
    sys.exit("usage: tls.py tls URL | plaintext HOST:PORT")
