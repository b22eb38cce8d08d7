"""catalog_calls.py — spark.catalog calls of the pinned PySpark client (pyspark 4.0.1) and the SQL
commands over databases and functions behind them, each checked by a value computed here, so
that the same program passes against Apache Spark 4's own Connect server (catalog_calls_spark.sh)
and against cspark (catalog_calls.sh): databases (create, list, get, exists, set current, drop
with and without CASCADE), tables of the current and of another database (managed ones, one made
by createTable with a description, external ones over a folder), their columns, persistent and
temporary functions (listed, found, described, refused when called), caching a table and
refreshing it after its files change, and the exception raised by each wrong call.

  catalog_calls.py URL DIR

DIR is a scratch folder for the external table. Exits 1 naming the first check that fails.
"""
import os
import shutil
import sys

from pyspark.sql import SparkSession
from pyspark.sql.types import IntegerType, StructField, StructType
from connect_checks import check, raises

spark = SparkSession.builder.remote(sys.argv[1]).getOrCreate()
scratch = sys.argv[2]
cat = spark.catalog


def sql(q):
    return spark.sql(q).collect()


# databases
check(cat.currentCatalog() == "spark_catalog", "currentCatalog")
check([c.name for c in cat.listCatalogs()] == ["spark_catalog"], "listCatalogs")
check([d.name for d in cat.listDatabases()] == ["default"], "listDatabases before")
check(not cat.databaseExists("cat_db"), "databaseExists before")
sql("CREATE DATABASE cat_db COMMENT 'made here'")
raises(lambda: sql("CREATE DATABASE cat_db"), "SCHEMA_ALREADY_EXISTS", "cat_db")
sql("CREATE SCHEMA IF NOT EXISTS cat_db")
check(sorted(d.name for d in cat.listDatabases()) == ["cat_db", "default"], "listDatabases")
check([d.name for d in cat.listDatabases("cat*")] == ["cat_db"], "listDatabases(pattern)")
check(cat.databaseExists("cat_db") and cat.databaseExists("spark_catalog.cat_db"), "exists")
check(not cat.databaseExists("spark_catalog.cat_db2"), "databaseExists of another")
d = cat.getDatabase("spark_catalog.cat_db")
check((d.name, d.catalog, d.description) == ("cat_db", "spark_catalog", "made here"), repr(d))
check(d.locationUri.startswith("file:") and d.locationUri.endswith("/cat_db.db"), d.locationUri)
raises(lambda: cat.getDatabase("no_such_db"), "SCHEMA_NOT_FOUND", "no_such_db")
raises(lambda: cat.setCurrentDatabase("no_such_db"), "SCHEMA_NOT_FOUND", "no_such_db")
rows = [r.namespace for r in sql("SHOW DATABASES")]
check(sorted(rows) == ["cat_db", "default"], "SHOW DATABASES: %r" % rows)
info = {r.info_name: r.info_value for r in sql("DESCRIBE DATABASE cat_db")}
check(info["Namespace Name"] == "cat_db" and info["Comment"] == "made here", repr(info))

# tables
sql("CREATE TABLE tab1 (name STRING, age INT) USING parquet")
sql("CREATE TABLE cat_db.tab2 (nickname STRING, tolerance FLOAT) USING parquet")
schema = StructType([StructField("a", IntegerType(), True)])
df3 = cat.createTable("tab3", schema=schema, description="via createTable")
check(df3.schema == schema and df3.count() == 0, "createTable's DataFrame: %r" % df3.schema)
os.makedirs(os.path.join(scratch, "ext"), exist_ok=True)
cat.createTable("tab4", path=os.path.join(scratch, "ext"), source="json", schema=schema)
spark.createDataFrame([(1, 1)]).createOrReplaceTempView("temp_tab")
tables = {t.name: t for t in cat.listTables()}
check(sorted(tables) == ["tab1", "tab3", "tab4", "temp_tab"], "listTables: %r" % sorted(tables))
check(tables["tab1"].tableType == "MANAGED" and tables["tab1"].database == "default", "tab1")
check(tables["tab3"].description == "via createTable", "tab3's description")
check(tables["tab4"].tableType == "EXTERNAL", "tab4 is external")
check(tables["temp_tab"].isTemporary and tables["temp_tab"].catalog is None, "temp_tab")
in_db = sorted(t.name for t in cat.listTables("cat_db"))
check(in_db == ["tab2", "temp_tab"], "listTables(cat_db): %r" % in_db)
listed = sorted(t.name for t in cat.listTables("default", "tab1|tab3"))
check(listed == ["tab1", "tab3"], "listTables(pattern): %r" % listed)
raises(lambda: cat.listTables("no_such_db"), "SCHEMA_NOT_FOUND", "no_such_db")
t2 = cat.getTable("spark_catalog.cat_db.tab2")
check((t2.name, t2.catalog, t2.namespace) == ("tab2", "spark_catalog", ["cat_db"]), repr(t2))
raises(lambda: cat.getTable("cat_db.nope"), "TABLE_OR_VIEW_NOT_FOUND", "nope")
check(cat.tableExists("tab1") and cat.tableExists("spark_catalog.default.tab1"), "tab1 exists")
check(not cat.tableExists("tab2") and cat.tableExists("tab2", "cat_db"), "tab2 exists in cat_db")
cols = {c.name: c for c in cat.listColumns("cat_db.tab2")}
check(cols["tolerance"].dataType == "float" and cols["nickname"].dataType == "string", "columns")
check(not cols["tolerance"].isPartition and not cols["tolerance"].isBucket, "not partition")
raises(lambda: cat.listColumns("tab2"), "TABLE_OR_VIEW_NOT_FOUND", "tab2")
sql("INSERT INTO cat_db.tab2 VALUES ('x', 1.5)")
cat.setCurrentDatabase("cat_db")
check(cat.currentDatabase() == "cat_db", "currentDatabase after setCurrentDatabase")
r = sql("SELECT current_database() AS d, current_schema() AS s, current_catalog() AS c")
check(r[0].d == "cat_db" and r[0].s == "cat_db" and r[0].c == "spark_catalog", repr(r))
check([x.nickname for x in sql("SELECT * FROM tab2")] == ["x"], "a one-part name in cat_db")
check([x.tableName for x in sql("SHOW TABLES") if not x.isTemporary] == ["tab2"], "SHOW TABLES")
sql("USE default")
check(cat.currentDatabase() == "default", "USE default")

# caching: the kept rows are read until the table is refreshed
check(not cat.isCached("cat_db.tab2"), "not cached")
cat.cacheTable("spark_catalog.cat_db.tab2")
check(cat.isCached("cat_db.tab2") and cat.isCached("spark_catalog.cat_db.tab2"), "cached")
cat.uncacheTable("cat_db.tab2")
check(not cat.isCached("cat_db.tab2"), "uncached")
raises(lambda: cat.isCached("nope"), "TABLE_OR_VIEW_NOT_FOUND", "nope")
ext = os.path.join(scratch, "text")
os.makedirs(ext, exist_ok=True)
sql("CREATE TABLE my_tab (col STRING) USING TEXT LOCATION '%s'" % ext)
sql("INSERT INTO my_tab SELECT 'abc'")
cat.cacheTable("my_tab")
check(spark.table("my_tab").count() == 1, "cached count")
for f in os.listdir(ext):
    p = os.path.join(ext, f)
    shutil.rmtree(p) if os.path.isdir(p) else os.remove(p)
check(spark.table("my_tab").count() == 1, "the cached rows after the files went")
cat.refreshTable("spark_catalog.default.my_tab")
check(spark.table("my_tab").count() == 0, "the rows after refreshTable")
cat.clearCache()
check(not cat.isCached("my_tab"), "clearCache")
raises(lambda: cat.recoverPartitions("tab1"), "NOT_A_PARTITIONED_TABLE", "tab1")

# functions
fns = {f.name: f for f in cat.listFunctions()}
check(len(fns) > 200 and "current_database" in fns and "like" in fns, "builtins listed")
plus = fns["+"]
check(plus.className == "org.apache.spark.sql.catalyst.expressions.Add" and plus.isTemporary,
      repr(plus))
check(plus.description == "expr1 + expr2 - Returns `expr1`+`expr2`.", repr(plus.description))
check(cat.functionExists("abs") and not cat.functionExists("func1"), "functionExists before")
sql("CREATE FUNCTION func1 AS 'org.example.NoSuchUdf'")
sql("CREATE FUNCTION cat_db.func2 AS 'org.example.NoSuchUdf'")
raises(lambda: sql("CREATE FUNCTION func1 AS 'x.Y'"), "ROUTINE_ALREADY_EXISTS", "func1")
spark.udf.register("temp_func", lambda x: str(x))
names = {f.name for f in cat.listFunctions()}
check({"func1", "temp_func"} <= names and "func2" not in names, "listFunctions")
names = {f.name for f in cat.listFunctions("cat_db")}
check({"func2", "temp_func"} <= names and "func1" not in names, "listFunctions(cat_db)")
raises(lambda: cat.listFunctions("no_such_db"), "SCHEMA_NOT_FOUND", "no_such_db")
check(cat.functionExists("func1") and cat.functionExists("spark_catalog.default.func1"), "f1")
check(cat.functionExists("func2", "cat_db") and cat.functionExists("cat_db.func2"), "func2")
f1 = cat.getFunction("spark_catalog.default.func1")
check((f1.name, f1.catalog, f1.namespace, f1.className, f1.isTemporary) ==
      ("func1", "spark_catalog", ["default"], "org.example.NoSuchUdf", False), repr(f1))
raises(lambda: cat.getFunction("nope"), "UNRESOLVED_ROUTINE", "nope")
raises(lambda: sql("SELECT func1(1)"), "CANNOT_LOAD_FUNCTION_CLASS", "org.example.NoSuchUdf",
       "func1")
raises(lambda: sql("CREATE TEMPORARY FUNCTION tf AS 'org.example.NoSuchUdf'"),
       "CANNOT_LOAD_FUNCTION_CLASS", "org.example.NoSuchUdf", "tf")
user = [r.function for r in sql("SHOW USER FUNCTIONS")]
check(user == ["spark_catalog.default.func1", "temp_func"], "SHOW USER FUNCTIONS: %r" % user)
desc = [r.function_desc for r in sql("DESCRIBE FUNCTION func1")]
check(desc == ["Function: spark_catalog.default.func1", "Class: org.example.NoSuchUdf",
               "Usage: N/A."], repr(desc))
sql("DROP FUNCTION func1")
raises(lambda: sql("DROP FUNCTION func1"), "UNRESOLVED_ROUTINE", "func1")
sql("DROP FUNCTION IF EXISTS func1")
sql("DROP TEMPORARY FUNCTION temp_func")
raises(lambda: sql("DROP TEMPORARY FUNCTION temp_func"), "ROUTINE_NOT_FOUND", "temp_func")

# dropping
check(cat.dropTempView("temp_tab") and not cat.dropTempView("temp_tab"), "dropTempView")
raises(lambda: sql("DROP DATABASE cat_db"), "SCHEMA_NOT_EMPTY", "cat_db")
raises(lambda: sql("DROP DATABASE default"), "UNSUPPORTED_FEATURE.DROP_DATABASE", "default")
sql("DROP DATABASE cat_db CASCADE")
check(not cat.databaseExists("cat_db"), "dropped with CASCADE")
raises(lambda: sql("DROP DATABASE cat_db"), "SCHEMA_NOT_FOUND", "cat_db")
for t in ["tab1", "tab3", "tab4", "my_tab"]:
    sql("DROP TABLE " + t)
check(cat.listTables() == [], "no tables left")
print("catalog_calls: all checks passed")
