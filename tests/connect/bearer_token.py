"""bearer_token.py — spark.connect.authenticate.token as the PySpark client meets it (run by
tests/connect/pyspark_client.sh against a server started with a token): a session without the
token is refused (UNAUTHENTICATED), one with it (sc://localhost:PORT/;token=...) is served.

  bearer_token.py PORT TOKEN
"""
import sys
from pyspark.sql import SparkSession
port, token = sys.argv[1], sys.argv[2]
try:
    s = SparkSession.builder.remote("sc://localhost:%s/;user_id=anon" % port).create()
    s.sql("SELECT 1").collect()
    sys.exit("FAIL: a session without the token was served")
except Exception as e:
    if "UNAUTHENTICATED" not in str(e) and "authentication" not in str(e).lower():
        sys.exit("FAIL: a session without the token: unexpected error %s" % e)
s = SparkSession.builder.remote("sc://localhost:%s/;token=%s" % (port, token)).create()
if s.sql("SELECT 1 AS one").collect()[0][0] != 1:
    sys.exit("FAIL: a session with the token")
print("PASS token")
