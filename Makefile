# cspark — the two commands (`make run`, `make test`) plus build, bench, install and friends.
# Everything is driven by CMake; this file only sequences it. Outputs: build/ (normal) and
# build-asan/ (AddressSanitizer + UndefinedBehaviorSanitizer).
# What each target installs and builds (scripts/install-deps.sh names the package sets):
#   run    the core packages; cspark-submit, libcspark, examples/wordcount.so and gen_text only
#   core   the core packages; the C tree: library, programs, every example, the data generators
#   image  + mmdebstrap, skopeo; the image cspark:dev (deploy/Dockerfile) and the C tree it holds
#   k8s    + kubectl, ip, openssl; the real control plane (Go), kubesim's node agent and the image
#   build, test   everything (all package sets; CMake's `all`: the above plus tests, kubesim, fuzzers)
# They share build/: `make run` then `make test` builds what run left out.
# CMake's own makefiles run as sub-makes: without this each prints its every directory change
MAKEFLAGS += --no-print-directory
JOBS      ?= $(shell nproc 2>/dev/null || echo 2)
BUILD     ?= build
ASAN      ?= build-asan
PREFIX    ?= /usr/local
CTEST_ARGS ?= --output-on-failure

.PHONY: all deps deps-core deps-image deps-k8s build core build-asan image k8s run test test-normal test-asan bench bench-k8s bench-sql bench-clickbench bench-sql-rdd bench-sql-sf10 install clean format demo-k8s

all: build

# `all` also installs the pinned PySpark package (scripts/install-spark.sh, a cache dir, once), as
# the tests run Spark as their judge, and the pinned pyspark-client 4.1.3 package
# (scripts/install-pyspark-client.sh 4.1): the Spark Connect server's C code is generated at
# configure time from the newest protocol installed (scripts/connect-protos.sh: 4.1.3's
# descriptors, else the 4.0.1 jar's .proto files), so it must be there before the first configure
# for a fresh machine's build to serve 4.1 clients as a warm one does.
deps:
	@bash scripts/install-deps.sh all
	@bash scripts/install-spark.sh >/dev/null
	@bash scripts/install-pyspark-client.sh 4.1 >/dev/null

deps-core:
	@bash scripts/install-deps.sh core

deps-image:
	@bash scripts/install-deps.sh image

deps-k8s:
	@bash scripts/install-deps.sh k8s

$(BUILD)/CMakeCache.txt:
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_INSTALL_PREFIX=$(PREFIX) >/dev/null

build: deps $(BUILD)/CMakeCache.txt
	@cmake --build $(BUILD) -j $(JOBS)

# The C tree alone (CMake target `core`): no control plane, no image, no tests.
core: deps-core $(BUILD)/CMakeCache.txt
	@cmake --build $(BUILD) -j $(JOBS) --target core

# The sanitizer build shares the normal build's cache of the image's Debian layer (built once).
# It builds no control plane: its pass runs the Kubernetes tests on kubesim only (tests/CMakeLists.txt).
$(ASAN)/CMakeCache.txt:
	@cmake -S . -B $(ASAN) -DCMAKE_BUILD_TYPE=Debug -DCSPARK_SANITIZE=ON \
		-DCSPARK_K8S_CONTROL_PLANE=OFF -DCSPARK_IMAGE_CACHE=$(abspath $(BUILD))/image-cache >/dev/null

build-asan: deps $(ASAN)/CMakeCache.txt
	@cmake --build $(ASAN) -j $(JOBS)

# The image deploy/Dockerfile describes, without a container engine: $(BUILD)/image/cspark-dev.oci.tar
# (`skopeo copy oci-archive:...`, `podman load -i ...`) and, unpacked, what the test clusters run.
image: deps-image $(BUILD)/CMakeCache.txt
	@cmake --build $(BUILD) -j $(JOBS) --target image

# What the real control plane of scripts/k8s-run and the *_real tests needs: etcd, kube-apiserver,
# -controller-manager, -scheduler and CoreDNS built from tools/k8s/go.mod (Go 1.24+; about 10 minutes
# on 2 cores the first time, then cached), kubesim's node agent, and the image its pods run.
k8s: deps-k8s $(BUILD)/CMakeCache.txt
	@CSPARK_BUILD_DIR=$(BUILD) bash scripts/k8s-up --build-only >/dev/null
	@cmake --build $(BUILD) -j $(JOBS) --target kubesim image

# Runs the word count example in local mode on a generated corpus and prints the top words.
# Builds only what that run uses; `make test` (or `make build`) builds the rest in the same $(BUILD).
RUN_TARGETS := cspark-submit example_wordcount gen_text
run: deps-core $(BUILD)/CMakeCache.txt
	@cmake --build $(BUILD) -j $(JOBS) --target $(RUN_TARGETS)
	@bash scripts/run-example.sh $(BUILD)

test: test-normal test-asan

test-normal: build
	@cd $(BUILD) && ctest $(CTEST_ARGS) -j $(JOBS)

test-asan: build-asan
	@cd $(ASAN) && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
		ctest $(CTEST_ARGS) -j $(JOBS) -LE no-asan

bench: build
	@bash bench/run.sh $(BUILD)

# SQL: the 22 TPC-H queries on cspark-sql, Spark 4, DuckDB, DataFusion and Sail (bench/sql/run.sh;
# results in bench/results/sql_tpch_sf1.md). SQL_BENCH_ARGS: e.g. --scale 10 or --engines cspark,spark.
bench-sql: build
	@bash bench/sql/run.sh --build $(BUILD) $(SQL_BENCH_ARGS)

# SQL: the 43 ClickBench queries over a generated ClickBench-shaped hits table (10 M rows; not the
# real data set) on the same engines (results in bench/results/clickbench.md).
bench-clickbench: build
	@bash bench/sql/run.sh --suite clickbench --build $(BUILD) $(SQL_BENCH_ARGS)

# SQL: the RDD benchmarks' word count, join and sort written in SQL (bench/sql/rdd/queries/) over
# their generators' inputs as Parquet tables (200 MB of text, 2 M records: bench/spark_vs_cspark.sh's
# sizes), on the same engines (results in bench/results/sql_rdd.md).
bench-sql-rdd: build
	@bash bench/sql/run.sh --suite rdd --build $(BUILD) $(SQL_BENCH_ARGS)

# SQL at scale 10 (bench/results/sql_tpch_sf10.md), not part of test: cspark on
# local-cluster[2,1,2560] with 2 GiB executors against Spark 4 (local[2], a 4 GiB heap: the same
# memory as the two executors; one process for all queries, beside the per-query rounds), and
# cspark again on local-cluster[2,1,1024] with 1 GiB executors (cspark-spill: the operators
# spill), every engine's rows checked against Spark's, with cspark's spill metrics. Add DuckDB
# with SQL_BENCH_ARGS='--engines cspark,cspark-spill,duckdb,spark'.
bench-sql-sf10: build
	@bash bench/sql/run.sh --build $(BUILD) --scale 10 --engines cspark,cspark-spill,spark \
	  --all-only spark --all-concurrently --no-all --spark-driver-memory 1g --timeout 7200 \
	  --master 'local-cluster[2,1,2560]' --conf spark.executor.memory=2g \
	  --spark-master 'local-cluster[2,1,2560]' --spark-conf spark.executor.memory=2g \
	  --spill-master 'local-cluster[2,1,1024]' --spill-conf spark.executor.memory=1024m \
	  --spill-metrics $(SQL_BENCH_ARGS)

# Kubernetes benchmarks on kubesim: 1,000 executor pods (fake kubelet), Running-to-registered,
# submit-to-first-task (bench/k8s_bench.sh; results in bench/results/k8s.md).
bench-k8s: build
	@bash bench/k8s_bench.sh $(BUILD)

# Word count in cluster mode on kubesim with 3 executor pods; prints the result and the pod timeline.
# Needs kubesim and the image, not the real control plane.
demo-k8s: deps-k8s $(BUILD)/CMakeCache.txt
	@cmake --build $(BUILD) -j $(JOBS) --target core kubesim image
	@bash scripts/demo-k8s.sh $(BUILD)

install: build
	@cmake --install $(BUILD)

format:
	@find include src tools examples bench tests -name '*.[ch]' | xargs clang-format -i

clean:
	@rm -rf $(BUILD) $(ASAN)
