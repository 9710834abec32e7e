# Makefile: set-up, build, run, test, install and bench for rswoole.
#   make run      installs what is missing, builds, serves examples/http_server.php on 127.0.0.1:9501
#   make test     installs what is missing, builds, runs every test
#   make install  copies the extension to $(php-config --extension-dir)/rswoole.so
#   make bench    reproduces seed 000's benchmark (bench/run.sh) the coroutine benchmarks (bench/coro.sh)
#                 TCP echo / task round trips (bench/tcp.sh) and seed 001's 100 blocking workers with Redis
#                 (bench/seed001.sh), seed 003's WebSocket chat and a 1000-client fan-out (bench/seed003.sh),
#                 idle connections (bench/idle.sh), instructions per request (bench/instructions.sh), and
#                 with SWOOLE_SO=/path/to/swoole.so the paired rounds (bench/pair.sh); it ends with issue 16's
#                 targets in one table (bench/targets.php -> bench/out/targets.md)

SHELL := /bin/bash
CARGO ?= cargo
PHP ?= php
SO := $(CURDIR)/target/release/librswoole.so
# Debian's package names; `php-cli`/`php-dev` are the fallback on distros without 8.2.
# redis-server and phpredis: seed 000's Redis example is a test.
# mariadb-server, php-mysql, php-curl, php-fpm, nghttp2-client, guzzle: runtime hooks, pools, FastCGI and HTTP/2 tests
# (php-tests/include/services.php starts private instances on free ports and stops them by pid).
# python3-websockets: the WebSocket battery (tests/integration/test_websockets_lib.py) uses that client.
# python3-brotli: tests/integration/test_compression.py decodes br bodies with it.
APT_PKGS := php8.2-cli php8.2-dev libclang-dev curl python3 python3-websockets python3-prometheus-client build-essential pkg-config redis-server php8.2-redis mariadb-server php8.2-mysql php8.2-curl php8.2-fpm nghttp2-client php-guzzlehttp-guzzle nginx-light python3-brotli
APT_FALLBACK := php-cli php-dev libclang-dev curl python3 python3-websockets python3-prometheus-client build-essential pkg-config redis-server php-redis mariadb-server php-mysql php-curl php-fpm nghttp2-client php-guzzlehttp-guzzle nginx-light python3-brotli


.PHONY: deps-frameworks test-frameworks tls-check engine-deps
.PHONY: all deps build run test test-engine test-php lint stubs stubs-check signatures-check install bench bench-coro bench-pair clean

all: build

# Installs missing system packages as root; as a normal user prints the command.
deps:
	@missing=""; \
	command -v $(PHP) >/dev/null 2>&1 || missing="$$missing php"; \
	command -v php-config >/dev/null 2>&1 || missing="$$missing php-dev"; \
	ls /usr/lib/llvm-*/lib/libclang*.so* >/dev/null 2>&1 || ls /usr/lib/*/libclang*.so* >/dev/null 2>&1 || missing="$$missing libclang"; \
	command -v curl >/dev/null 2>&1 || missing="$$missing curl"; \
	command -v python3 >/dev/null 2>&1 || missing="$$missing python3"; \
	{ python3 -c 'import websockets' || PYTHONPATH=/usr/lib/python3/dist-packages python3 -c 'import websockets'; } >/dev/null 2>&1 || missing="$$missing python3-websockets"; \
	{ python3 -c 'import brotli' || PYTHONPATH=/usr/lib/python3/dist-packages python3 -c 'import brotli'; } >/dev/null 2>&1 || missing="$$missing python3-brotli"; \
	{ python3 -c 'import prometheus_client' || PYTHONPATH=/usr/lib/python3/dist-packages python3 -c 'import prometheus_client'; } >/dev/null 2>&1 || missing="$$missing python3-prometheus-client"; \
	command -v redis-server >/dev/null 2>&1 || missing="$$missing redis-server"; \
	$(PHP) -n -d extension=igbinary -d extension=redis -r 'exit(extension_loaded("redis") ? 0 : 1);' >/dev/null 2>&1 || missing="$$missing php-redis"; \
	{ test -x /usr/sbin/mariadbd || test -x /usr/sbin/mysqld; } || missing="$$missing mariadb-server"; \
	$(PHP) -n -d extension=mysqlnd -d extension=pdo -d extension=pdo_mysql -d extension=mysqli -r 'exit(extension_loaded("pdo_mysql") && extension_loaded("mysqli") ? 0 : 1);' >/dev/null 2>&1 || missing="$$missing php-mysql"; \
	$(PHP) -n -d extension=curl -r 'exit(extension_loaded("curl") ? 0 : 1);' >/dev/null 2>&1 || missing="$$missing php-curl"; \
	ls /usr/sbin/php-fpm* >/dev/null 2>&1 || missing="$$missing php-fpm"; \
	command -v h2load >/dev/null 2>&1 || missing="$$missing nghttp2-client"; \
	test -x /usr/sbin/nginx || missing="$$missing nginx"; \
	test -f /usr/share/php/GuzzleHttp/Client.php || missing="$$missing php-guzzlehttp-guzzle"; \
	command -v cc >/dev/null 2>&1 || missing="$$missing cc"; \
	if [ -n "$$missing" ]; then \
	  echo "deps: missing:$$missing"; \
	  if [ "$$(id -u)" = 0 ]; then \
	    export DEBIAN_FRONTEND=noninteractive; \
	    apt-get update -q && \
	    ( apt-get install -y -q $(APT_PKGS) || apt-get install -y -q $(APT_FALLBACK) ); \
	  else \
	    echo "deps: run as root:  apt-get update && apt-get install -y $(APT_PKGS)"; exit 1; \
	  fi; \
	fi
	@command -v $(CARGO) >/dev/null 2>&1 || { echo "deps: cargo not found: install Rust from rustup (https://rustup.rs) and re-run"; exit 1; }
	@$(PHP) -r 'exit(PHP_VERSION_ID >= 80100 ? 0 : 1);' || { echo "deps: PHP >= 8.1 is required (Fibers); found $$($(PHP) -r 'echo PHP_VERSION;')"; exit 1; }

build: deps
	$(CARGO) build --release
	@test -f $(SO)

run: build
	$(PHP) -d extension=$(SO) examples/http_server.php

lint:
	$(CARGO) fmt --all -- --check
	$(CARGO) clippy --release --all-targets -- -D warnings
	$(CARGO) clippy --no-default-features --all-targets -- -D warnings

test-engine:
	$(CARGO) test --no-default-features
	$(CARGO) test --no-default-features --features fault-inject --lib fault_inject
	# The unit tests inside src/php (build.rs lets them link without PHP).
	$(CARGO) test --release --lib

# No import cycle among src/engine's modules (docs/internals.md, "Engine module graph").
engine-deps:
	python3 tools/engine-deps.py

stubs: build
	$(PHP) -n -d extension=$(SO) tools/gen-stubs.php > stubs/swoole.stub.php

stubs-check: build
	@$(PHP) -n -d extension=$(SO) tools/gen-stubs.php | diff -u stubs/swoole.stub.php - \
	  || { echo "stubs/swoole.stub.php is out of date: run 'make stubs'"; exit 1; }

# Reflection of the built module against Swoole 6.2.2's signatures, less the documented deviations.
signatures-check: build
	$(PHP) -n -d extension=$(SO) tools/check-signatures.php

test-php: build
	RSWOOLE_SO=$(SO) bash tests/run.sh

tls-check: build
	bash tools/tls-check.sh $(SO)

test: build lint engine-deps test-engine tls-check stubs-check signatures-check test-php

install: build
	install -m 0755 $(SO) "$$(php-config --extension-dir)/rswoole.so"
	@echo "installed: $$(php-config --extension-dir)/rswoole.so  (enable with extension=rswoole)"

bench: build
	SO=$(SO) bash bench/run.sh
	[ -z "$(SWOOLE_SO)" ] || SO=$(SO) SWOOLE_SO=$(SWOOLE_SO) bash bench/pair.sh
	[ -z "$(SWOOLE_SO)" ] || SO=$(SO) SWOOLE_SO=$(SWOOLE_SO) PAIR_MODE=process bash bench/pair.sh
	SO=$(SO) bash bench/coro.sh
	SO=$(SO) bash bench/tcp.sh
	SO=$(SO) bash bench/seed001.sh
	SO=$(SO) bash bench/seed003.sh
	SO=$(SO) bash bench/idle.sh
	SO=$(SO) bash bench/instructions.sh
	$(PHP) -n bench/targets.php

bench-coro: build
	SO=$(SO) bash bench/coro.sh

# rswoole vs real Swoole (SWOOLE_SO=/path/to/swoole.so, built outside the repo) in alternating rounds.
bench-pair: build
	SO=$(SO) SWOOLE_SO=$(SWOOLE_SO) bash bench/pair.sh

clean:
	$(CARGO) clean

# Laravel Octane end to end (tests/frameworks/octane_check.py): Debian's Laravel 8 plus a
# laravel/octane v1.5.6 checkout given as OCTANE_DIR (Octane's code is not in this repository).
# Not part of `make test`: it needs that checkout. EXT_SO=/path/to/swoole.so runs it on another build.
deps-frameworks:
	@test -f /usr/share/php/Illuminate/autoload.php || { export DEBIAN_FRONTEND=noninteractive; \
	  apt-get update -q && apt-get install -y -q php-laravel-framework php8.2-mbstring php8.2-xml; }

test-frameworks: build deps-frameworks
	OCTANE_DIR=$(OCTANE_DIR) RSWOOLE_SO=$(SO) python3 tests/frameworks/octane_check.py
