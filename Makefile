# cspark — the two commands (`make run`, `make test`) plus build, bench, install and friends.
# Everything is driven by CMake; this file only sequences it. Outputs: build/ (normal) and
# build-asan/ (AddressSanitizer + UndefinedBehaviorSanitizer).
JOBS      ?= $(shell nproc 2>/dev/null || echo 2)
BUILD     ?= build
ASAN      ?= build-asan
PREFIX    ?= /usr/local
CTEST_ARGS ?= --output-on-failure

.PHONY: all deps build build-asan image run test test-normal test-asan bench bench-k8s install clean format demo-k8s

all: build

deps:
	@bash scripts/install-deps.sh

$(BUILD)/CMakeCache.txt:
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_INSTALL_PREFIX=$(PREFIX) >/dev/null

build: deps $(BUILD)/CMakeCache.txt
	@cmake --build $(BUILD) -j $(JOBS)

# The sanitizer build shares the normal build's cache of the image's Debian layer (built once).
$(ASAN)/CMakeCache.txt:
	@cmake -S . -B $(ASAN) -DCMAKE_BUILD_TYPE=Debug -DCSPARK_SANITIZE=ON \
		-DCSPARK_IMAGE_CACHE=$(abspath $(BUILD))/image-cache >/dev/null

build-asan: deps $(ASAN)/CMakeCache.txt
	@cmake --build $(ASAN) -j $(JOBS)

# The image deploy/Dockerfile describes, without a container engine: $(BUILD)/image/cspark-dev.oci.tar
# (`skopeo copy oci-archive:...`, `podman load -i ...`) and, unpacked, what the test clusters run.
image: build
	@cmake --build $(BUILD) --target image

# Runs the word count example in local mode on a generated corpus and prints the top words.
run: build
	@bash scripts/run-example.sh $(BUILD)

test: test-normal test-asan

test-normal: build
	@cd $(BUILD) && ctest $(CTEST_ARGS) -j $(JOBS)

test-asan: build-asan
	@cd $(ASAN) && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
		ctest $(CTEST_ARGS) -j $(JOBS) -LE no-asan

bench: build
	@bash bench/run.sh $(BUILD)

# Kubernetes benchmarks on kubesim: 1,000 executor pods (fake kubelet), Running-to-registered,
# submit-to-first-task (bench/k8s_bench.sh; results in bench/results/k8s.md).
bench-k8s: build
	@bash bench/k8s_bench.sh $(BUILD)

# Word count in cluster mode on kubesim with 3 executor pods; prints the result and the pod timeline.
demo-k8s: build
	@bash scripts/demo-k8s.sh $(BUILD)

install: build
	@cmake --install $(BUILD)

format:
	@find include src tools examples bench tests -name '*.[ch]' | xargs clang-format -i

clean:
	@rm -rf $(BUILD) $(ASAN)
