# Two commands matter: `make run` and `make test`. Everything they need is installed on first use.
# uv is bootstrapped into .tools/ from PyPI; it never downloads a Python (UV_PYTHON_DOWNLOADS=never).
PYTHON ?= python3
UV := .tools/bin/uv
RUN := $(UV) run --frozen --no-sync
export UV_PYTHON := $(PYTHON)
export UV_PYTHON_DOWNLOADS := never

.PHONY: live-runs-postgres run test check prebuilt seeded test-bytecode lint typecheck contracts migration-lint pytest pytest-sqlite \
	pytest-postgres pytest-postgres-set pytest-scale pytest-no-database test-durations live-runs fuzz-api fuzz bench format clean \
	reliability-outbox reliability-outbox-ci t5-all reliability-ledger reliability-ledger-ci t2-all \
	reliability-restore reliability-restore-ci reliability-migrate

ASSETS := src/jobgrant/service/web/static/vendor/.done
NUMBA_CACHE := src/jobgrant/rules/__pycache__/.precompiled
CHROMIUM := /usr/bin/chromium-headless-shell
# WeasyPrint (the agreement's PDF) needs Pango and HarfBuzz's subsetter; this file stands for them.
PANGO := /usr/lib/x86_64-linux-gnu/libharfbuzz-subset.so.0
# Debian's nginx, for the test of the shipped proxy configuration (tests/service/test_proxy_nginx.py).
NGINX := /usr/sbin/nginx
# Debian's Redis, for the rate limits counted in Redis (tests/service/accounts/test_rate_limits_on_redis.py).
REDIS := /usr/bin/redis-server
APT_INSTALL := sh -c 'sudo -n apt-get install -y "$$@" 2>/dev/null || apt-get install -y "$$@"' apt-get

# The server and, beside it, the worker that delivers the outbox's messages (stopped with the
# server). Messages are written as files to var/mail/ and shown on /en/demo/mail/. On a fresh
# database the worker first loads the demonstration history (past years' finished files, about a
# minute and a half of CPU, its progress printed) while the server already answers.
run: .venv/.synced $(ASSETS) $(PANGO)
	$(RUN) jobgrant migrate
	JOBGRANT_EMAIL_BACKEND=file JOBGRANT_DEMO_MAIL=1 sh -c '$(RUN) jobgrant worker --demo-history & worker=$$!; \
		trap "kill $$worker 2>/dev/null; wait $$worker" EXIT INT TERM; $(RUN) jobgrant serve'

# `make test`, in three steps, each stage's wall and CPU time printed at the end (tests/stage_clock.py):
# 1. install what is missing (uv, the .venv, the npm packages, Chromium, Pango);
# 2. the checks and builds side by side: lint, mypy, the import contracts, the migrations' check
#    (django-migration-linter, docs/deployment.md), the kernel's Numba
#    cache, `prebuilt` (static files, migrated databases), `seeded` (the tests' seeded
#    databases, tests/seeded.py) and `test-bytecode` (the test modules as pytest rewrites them);
# 3. four lanes side by side (TEST_LANES=1 runs them one after the other), each stage's output
#    printed whole when it ends (--output-sync): the SQLite set, the PostgreSQL set, and two
#    lanes of live runs one after another, which spend most of their time waiting on servers,
#    SMTP refusals and killed processes: Schemathesis, T5 and T2; then T4, T6 (a point-in-time
#    restore), the previous release's servers during `jobgrant migrate`, `make load-ci` (a small
#    crowd) and tests/scale (two servers on one database).
# docs/testing.md says which tests run in which set, and why.
TEST_LANES ?= 4
CLOCK := $(PYTHON) tests/stage_clock.py

# Bytecode is written: where PYTHONDONTWRITEBYTECODE is set (as on our CI machines) each test
# process rewrote every test module's assertions and compiled it again (pytest keeps the result
# only where bytecode may be written): about 10 s of CPU for each of the five test processes of
# `make test`. `test-bytecode` writes it once, beside the other builds, before they start.
export PYTHONDONTWRITEBYTECODE :=

test:
	@$(CLOCK) begin
	@$(CLOCK) run install -- $(MAKE) --no-print-directory .venv/.synced $(ASSETS) $(CHROMIUM) $(PANGO) \
		$(NGINX) $(REDIS)
	@$(CLOCK) run checks-and-builds -- $(MAKE) --no-print-directory -j3 --output-sync=target \
		lint typecheck contracts migration-lint $(NUMBA_CACHE) prebuilt seeded test-bytecode
	@$(MAKE) --no-print-directory -j$(TEST_LANES) --output-sync=target \
		timed-pytest-sqlite timed-pytest-postgres-set live-runs live-runs-postgres
	@$(CLOCK) report

timed-%:
	@$(CLOCK) run $* -- $(MAKE) --no-print-directory $*

live-runs:
	@$(CLOCK) run fuzz-api -- $(MAKE) --no-print-directory fuzz-api
	@$(CLOCK) run reliability-outbox-ci -- $(MAKE) --no-print-directory reliability-outbox-ci
	@$(CLOCK) run reliability-ledger-ci -- $(MAKE) --no-print-directory reliability-ledger-ci

live-runs-postgres:
	@$(CLOCK) run reliability-crash-ci -- $(MAKE) --no-print-directory reliability-crash-ci
	@$(CLOCK) run reliability-restore-ci -- $(MAKE) --no-print-directory reliability-restore-ci
	@$(CLOCK) run reliability-migrate -- $(MAKE) --no-print-directory reliability-migrate
	@$(CLOCK) run load-ci -- $(MAKE) --no-print-directory load-ci
	@$(CLOCK) run pytest-scale -- $(MAKE) --no-print-directory pytest-scale

# The fast inner loop (docs/testing.md): lint, types, contracts and the tests that touch no
# database, side by side. Those tests read the compiled French messages and the vendored fonts
# (the agreement's text is laid out by WeasyPrint), so a fresh checkout builds them first.
check: .venv/.synced $(NUMBA_CACHE) $(ASSETS) $(PANGO)
	@$(MAKE) --no-print-directory -j4 --output-sync=target lint typecheck contracts pytest-no-database

pytest-no-database: .venv/.synced $(NUMBA_CACHE) $(ASSETS) $(PANGO)
	JOBGRANT_TEST_ENGINE=none $(RUN) pytest -n $(PYTEST_WORKERS) --dist worksteal

# What every server and test process reuses, made once into var/build/ (nothing to do when its
# sources did not change): the static files collected and compressed, a migrated SQLite database
# and a migrated PostgreSQL template database (commands.prebuild). Without it the first server or
# test process to need one makes it while the others wait.
prebuilt: .venv/.synced $(ASSETS)
	@if $(POSTGRES_SKIPPED); then \
		$(RUN) python -m jobgrant.service.commands; \
	else $(RUN) python -m jobgrant.service.commands $(POSTGRES_URL); fi

# The tests' seeded databases (tests/seeded.py): the migrated one with the demonstration data and
# the personas, as a SQLite file and a PostgreSQL template database, once per content.
seeded: .venv/.synced
	@if $(POSTGRES_SKIPPED); then \
		$(RUN) python -m tests.seeded; \
	else $(RUN) python -m tests.seeded $(POSTGRES_URL); fi

# Every test module collected once (nothing run), so that pytest's rewritten modules and the
# helpers' bytecode are in __pycache__ before the test processes start.
test-bytecode: .venv/.synced
	$(RUN) pytest --collect-only -p no:xdist -p no:cacheprovider >/dev/null

lint: .venv/.synced
	$(RUN) ruff check .
	$(RUN) ruff format --check .

typecheck: .venv/.synced
	$(RUN) mypy

contracts: .venv/.synced
	$(RUN) lint-imports

# Every migration of the service's apps read by django-migration-linter on PostgreSQL: one that
# breaks the servers of the release before or locks a table is refused, unless
# migrations-allowed.toml lists it with its reason (docs/deployment.md). Only SQL is generated.
migration-lint: .venv/.synced
	@if $(POSTGRES_SKIPPED); then \
		echo "Skipping the migration check (JOBGRANT_SKIP_POSTGRES is set)"; exit 0; fi; \
	JOBGRANT_DATABASE_URL=$(POSTGRES_URL) $(RUN) python tests/migration_lint.py

# Each test runs on the engine that matters (tests/conftest.py, docs/testing.md): the service and
# page tests that use a database on PostgreSQL, the production engine (`pytest-postgres`);
# everything else on SQLite, the development engine (`pytest-sqlite`), with the tests of the
# modules that branch on the engine in both. PostgreSQL must be reachable; only outside CI may
# JOBGRANT_SKIP_POSTGRES=1 skip its set. The tests marked `postgres` (tests/scale: two `jobgrant
# serve` on one database) run after the PostgreSQL set, in one process.
POSTGRES_URL ?= postgresql://postgres@127.0.0.1:5432/jobgrant
# True (in a recipe's shell) where the PostgreSQL stages are skipped: JOBGRANT_SKIP_POSTGRES set,
# and only outside CI, where they must run.
POSTGRES_SKIPPED = [ -n "$$JOBGRANT_SKIP_POSTGRES" ] && [ -z "$$CI" ]

# Two test processes per set (pytest-xdist, worksteal, the longest tests first:
# tests/durations.json); PYTEST_WORKERS=0 runs in one.
PYTEST_WORKERS ?= 2
PYTEST := $(RUN) pytest -n $(PYTEST_WORKERS) --dist worksteal

pytest: pytest-sqlite pytest-postgres

pytest-sqlite: .venv/.synced $(NUMBA_CACHE) $(CHROMIUM) $(PANGO)
	JOBGRANT_TEST_ENGINE=sqlite $(PYTEST) -m "not postgres"

pytest-postgres:
	@$(MAKE) --no-print-directory pytest-postgres-set
	@$(MAKE) --no-print-directory pytest-scale

pytest-postgres-set: .venv/.synced
	@if $(POSTGRES_SKIPPED); then \
		echo "Skipping the PostgreSQL set (JOBGRANT_SKIP_POSTGRES is set)"; exit 0; fi; \
	$(RUN) python -c "import psycopg, sys; psycopg.connect('$(POSTGRES_URL)'.rsplit('/', 1)[0] + '/postgres').close()" \
		|| { echo "PostgreSQL is not reachable at $(POSTGRES_URL): the service tests must run on it."; exit 1; }; \
	JOBGRANT_DATABASE_URL=$(POSTGRES_URL) JOBGRANT_TEST_ENGINE=postgresql \
		$(PYTEST) -m "not postgres" tests/service $(wildcard tests/web)

# tests/scale (two real servers on one database): in `make test` the last of the live runs on
# PostgreSQL, beside the sets rather than after the PostgreSQL set, which ends the run.
pytest-scale: .venv/.synced
	@if $(POSTGRES_SKIPPED); then \
		echo "Skipping tests/scale (JOBGRANT_SKIP_POSTGRES is set)"; exit 0; fi; \
	JOBGRANT_DATABASE_URL=$(POSTGRES_URL) $(RUN) pytest -n 0 tests/scale

# tests/durations.json anew: both sets run in one process each, recording each test's seconds.
test-durations: .venv/.synced $(NUMBA_CACHE)
	JOBGRANT_RECORD_DURATIONS=1 JOBGRANT_TEST_ENGINE=sqlite $(RUN) pytest -n 0 -m "not postgres"
	JOBGRANT_RECORD_DURATIONS=1 JOBGRANT_TEST_ENGINE=postgresql JOBGRANT_DATABASE_URL=$(POSTGRES_URL) \
		$(RUN) pytest -n 0 -m "not postgres" tests/service tests/web

# Schemathesis against the live server (jobgrant serve, demonstration data, a temporary SQLite
# database), with an employer's and an officer's token: 0 server errors and 0 schema violations
# required. `make test` spends FUZZ_CI_REQUESTS; `make fuzz` a longer pass of FUZZ_REQUESTS.
# The CI pass draws from a fixed seed, so that a red build can be replayed and a green one is not
# luck; `make fuzz` draws anew each time (FUZZ_SEED= to replay one).
FUZZ_CI_REQUESTS ?= 5500
FUZZ_CI_SEED ?= 20261201
FUZZ_REQUESTS ?= 20000

fuzz-api: .venv/.synced
	$(RUN) python tests/fuzz/live_api.py --requests $(FUZZ_CI_REQUESTS) --seed $(FUZZ_CI_SEED) --coverage-once

fuzz: .venv/.synced
	$(RUN) python tests/fuzz/live_api.py --requests $(FUZZ_REQUESTS) $(if $(FUZZ_SEED),--seed $(FUZZ_SEED))

# bench/simulate.py installs openfisca-core from PyPI into .tools/openfisca-venv the first time
# (never a dependency of jobgrant); without a network it says it skipped the comparison.
bench: .venv/.synced $(NUMBA_CACHE)
	$(RUN) python bench/kernel.py
	$(RUN) python bench/approvals.py
	$(RUN) python bench/simulate_population.py
	$(RUN) python bench/simulate.py
	$(RUN) python bench/messages.py
	$(RUN) python bench/claims.py
	$(RUN) python bench/payments.py
	$(RUN) python bench/kpis.py

# T5 (docs/reliability.md): messages through the outbox while the SMTP server refuses 30% of the
# deliveries and the worker is killed with SIGKILL 3 times; on SQLite, on PostgreSQL, and on
# PostgreSQL with two workers (scale-out), then two workers and no kill (no duplicate allowed).
# `make test` runs it with T5_CI_MESSAGES; `make reliability-outbox` with T5_MESSAGES.
# Then through the GC Notify stand-in (--delivery notify, ADR 0025; no duplicate allowed): on
# SQLite, and (reliability-outbox only) on PostgreSQL with two workers.
T5_MESSAGES ?= 1000
T5_CI_MESSAGES ?= 100
T5_NOTIFY_MESSAGES ?= 300
T5_NOTIFY_CI_MESSAGES ?= 50
T5 := $(RUN) python tests/reliability/outbox_t5.py

reliability-outbox: .venv/.synced
	$(MAKE) --no-print-directory t5-all T5_COUNT=$(T5_MESSAGES)
	$(T5) --delivery notify --messages $(T5_NOTIFY_MESSAGES)
	@if $(POSTGRES_SKIPPED); then exit 0; fi; \
	$(T5) --delivery notify --messages $(T5_NOTIFY_MESSAGES) --database $(POSTGRES_URL) --workers 2

reliability-outbox-ci: .venv/.synced
	$(MAKE) --no-print-directory t5-all T5_COUNT=$(T5_CI_MESSAGES) T5_SEED=--seed=20261201
	$(T5) --delivery notify --messages $(T5_NOTIFY_CI_MESSAGES) --seed=20261201

t5-all:
	$(T5) --messages $(T5_COUNT) $(T5_SEED)
	@if $(POSTGRES_SKIPPED); then \
		echo "Skipping T5 on PostgreSQL (JOBGRANT_SKIP_POSTGRES is set)"; exit 0; fi; \
	$(T5) --messages $(T5_COUNT) $(T5_SEED) --database $(POSTGRES_URL) && \
	$(T5) --messages $(T5_COUNT) $(T5_SEED) --database $(POSTGRES_URL) --workers 2 && \
	$(T5) --messages $(T5_COUNT) $(T5_SEED) --database $(POSTGRES_URL) --workers 2 --kills 0

# T2 (docs/reliability.md): 16 workers move money through the ledger (commit, claim, approve, pay,
# receivable, recover, write off, release) on 8 shared budget accounts while a reader sums the
# ledger every 10 ms: 0 violations in over 5,000 reads, then `operations.verify()` empty. On
# PostgreSQL with 16 workers, and on SQLite with 4 (its writers take turns). `make test` runs it
# for a few seconds (T2_CI_SECONDS); `make reliability-ledger` for T2_SECONDS.
T2_SECONDS ?= 60
T2_CI_SECONDS ?= 4
T2 := $(RUN) python tests/reliability/ledger_t2.py

reliability-ledger: .venv/.synced
	$(MAKE) --no-print-directory t2-all T2_RUN=$(T2_SECONDS) T2_READS=5001

reliability-ledger-ci: .venv/.synced
	$(MAKE) --no-print-directory t2-all T2_RUN=$(T2_CI_SECONDS) T2_READS=$$(( $(T2_CI_SECONDS) * 10 )) \
		T2_SEED=--seed=20261201

t2-all:
	$(T2) --workers 4 --seconds $(T2_RUN) --min-reads $(T2_READS) $(T2_SEED)
	@if $(POSTGRES_SKIPPED); then \
		echo "Skipping T2 on PostgreSQL (JOBGRANT_SKIP_POSTGRES is set)"; exit 0; fi; \
	$(T2) --workers 16 --seconds $(T2_RUN) --min-reads $(T2_READS) $(T2_SEED) --database $(POSTGRES_URL)

# T4 (docs/reliability.md): a client walks files through the API with Idempotency-Keys while the app
# server (`jobgrant serve`, its whole process group) and the PostgreSQL postmaster are killed with
# SIGKILL at random moments; unacknowledged requests are retried with their keys. 0 acknowledged
# effects lost, 0 half-applied, 0 duplicates, `jobgrant ledger verify` and `jobgrant audit verify`
# clean. A PostgreSQL cluster of its own (initdb in a temporary directory, never the shared one).
T4 := $(RUN) python tests/reliability/crash_t4.py

reliability-crash: .venv/.synced
	$(T4) --app-kills 10 --postgres-kills 5 --files 30 --timeout 1800

reliability-crash-ci: .venv/.synced
	$(T4) --app-kills 2 --postgres-kills 1 --files 6 --seed 20261201 --timeout 600

# T6 (docs/reliability.md): a base backup (pg_basebackup) and the archived WAL restore a second
# cluster to a moment chosen mid-traffic (approvals, claims, payments through the API): every write
# acknowledged before it is there, none sent after it, `jobgrant ledger verify` and `jobgrant audit
# verify` clean; prints the writes on each side, lost (0) and the restore's time. A PostgreSQL
# cluster of its own with WAL archiving (initdb in a temporary directory, as T4).
T6 := $(RUN) python tests/reliability/restore_pitr.py

reliability-restore: .venv/.synced
	$(T6) --before 30 --after 30
	$(T6) --before 6 --after 4 --control 3   # restored 3 s early: the check must find writes lost

reliability-restore-ci: .venv/.synced
	$(T6) --before 6 --after 4 --seed 20261201 --restore-timeout 60

# The previous release's server (the commit before the newest migration, git archive) serves a crowd
# on a PostgreSQL cluster of its own while this release's `jobgrant migrate` runs: 0 errors required
# (docs/deployment.md, "Migrations that never stop the service"); then, --control, a migration
# renaming a column the old server reads, under the same crowd: the check must see requests fail.
reliability-migrate: .venv/.synced
	$(RUN) python tests/reliability/migrate_online.py --seed 20261201 --control

format: .venv/.synced
	$(RUN) ruff format .
	$(RUN) ruff check --fix .

$(UV):
	$(PYTHON) -m venv .tools || { sudo -n apt-get install -y python3-venv || apt-get install -y python3-venv; $(PYTHON) -m venv .tools; }
	.tools/bin/pip install --quiet --disable-pip-version-check uv

# Bytecode is compiled at install: where PYTHONDONTWRITEBYTECODE is set (as on our CI machines)
# Python would otherwise compile every module from source on every start of `jobgrant quote`.
.venv/.synced: pyproject.toml uv.lock $(UV)
	$(UV) sync --frozen --compile-bytecode
	$(RUN) python -m compileall -q src
	touch $@

# The kernel's compiled passes (Numba) are compiled into Numba's disk cache at install, for every
# shipped policy, not by the first population evaluated after a checkout (3-30 s); again whenever
# compiled.py changes, since Numba then discards that cache.
$(NUMBA_CACHE): src/jobgrant/rules/compiled.py .venv/.synced
	$(RUN) python -m jobgrant.rules.precompile
	touch $@

# Front-end packages (GC Design System, htmx, axe-core) come from npm at set-up, are copied into
# static/vendor/ and served by the application: nothing is fetched at run time.
$(ASSETS): package.json package-lock.json src/jobgrant/service/web/vendor.py .venv/.synced \
		src/jobgrant/service/web/locale/fr/LC_MESSAGES/django.po
	command -v npm >/dev/null || $(APT_INSTALL) nodejs npm
	command -v xgettext >/dev/null || $(APT_INSTALL) gettext
	npm ci --no-audit --no-fund --ignore-scripts --loglevel=error
	$(RUN) python -m jobgrant.service.web.vendor
	$(RUN) python -m jobgrant.service.web.messages compile
	touch $@

# The browser tests (tests/e2e) drive Debian's headless Chromium (chromium-headless-shell: the
# same Blink without the browser's window, a quarter less CPU than the full chromium), installed
# here when missing (never a browser downloaded by Playwright). In CI a failed install fails the
# build; elsewhere the browser tests then skip and say why.
$(CHROMIUM):
	$(APT_INSTALL) chromium-headless-shell || { sudo -n apt-get update >/dev/null 2>&1 || apt-get update >/dev/null; \
		$(APT_INSTALL) chromium-headless-shell; } || { [ -z "$$CI" ] && \
		echo "Chromium could not be installed: the browser tests will be skipped."; }

# The libraries WeasyPrint loads (the agreement as a PDF), from Debian's packages as Chromium is.
# nginx-light: the test runs its binary with a configuration of its own on free ports (any nginx
# service the package starts is not used). In CI the proxy's test fails without it rather than skip.
$(NGINX):
	$(APT_INSTALL) nginx-light || { sudo -n apt-get update >/dev/null 2>&1 || apt-get update >/dev/null; \
		$(APT_INSTALL) nginx-light; } || { [ -z "$$CI" ] && \
		echo "nginx could not be installed: the proxy's test will be skipped."; }

# redis-server: the test starts its own on a free port, in memory only (any service the package
# starts is not used). In CI the test fails without it rather than skip.
$(REDIS):
	$(APT_INSTALL) redis-server || { sudo -n apt-get update >/dev/null 2>&1 || apt-get update >/dev/null; \
		$(APT_INSTALL) redis-server; } || { [ -z "$$CI" ] && \
		echo "Redis could not be installed: the test of the rate limits on Redis will be skipped."; }

$(PANGO):
	$(APT_INSTALL) libpango-1.0-0 libpangoft2-1.0-0 libharfbuzz-subset0 || { sudo -n apt-get update >/dev/null 2>&1 || apt-get update >/dev/null; \
		$(APT_INSTALL) libpango-1.0-0 libpangoft2-1.0-0 libharfbuzz-subset0; }

clean:
	rm -rf .venv .tools .mypy_cache .ruff_cache .pytest_cache .import_linter_cache node_modules src/jobgrant/service/web/static/vendor

# `make load` (bench/load/run.py, docs/benchmarks.md): a crowd of LOAD_USERS simulated people
# (Locust, headless; bench/load/locustfile.py gives its weights) for LOAD_SECONDS against
# `jobgrant serve` (4 workers) and `jobgrant worker` on a PostgreSQL database of its own
# (LOAD_DATABASE on the server of POSTGRES_URL, made from the migrated template and dropped
# afterwards); it prints the latencies per endpoint, the requests per second and the
# server's CPU per request, then runs `jobgrant ledger verify` and `jobgrant audit verify`.
# A benchmark: `make load-ci` is its small run, which fails on any failed request.
# LOAD_ARGS adds options, e.g. `make load LOAD_ARGS=--cpu-by-endpoint` (each route's CPU).
LOAD_USERS ?= 100
LOAD_SECONDS ?= 90
LOAD_DATABASE ?= jobgrant_load
LOAD_CI_USERS ?= 12
LOAD_CI_SECONDS ?= 8
LOAD_ARGS ?=
LOAD := JOBGRANT_BENCH_POSTGRES=$(patsubst %/,%,$(dir $(POSTGRES_URL))) \
	$(RUN) python bench/load/run.py --database $(LOAD_DATABASE)

.PHONY: load load-ci
load: .venv/.synced
	$(LOAD) --users $(LOAD_USERS) --seconds $(LOAD_SECONDS) $(LOAD_ARGS)

load-ci: .venv/.synced
	$(LOAD) --users $(LOAD_CI_USERS) --seconds $(LOAD_CI_SECONDS) --spawn-rate $(LOAD_CI_USERS) \
		--employers 4 --require-no-failures
