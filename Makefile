# Two commands matter: `make run` and `make test`. Everything they need is installed on first use.
# uv is bootstrapped into .tools/ from PyPI; it never downloads a Python (UV_PYTHON_DOWNLOADS=never).
PYTHON ?= python3
UV := .tools/bin/uv
RUN := $(UV) run --frozen --no-sync
export UV_PYTHON := $(PYTHON)
export UV_PYTHON_DOWNLOADS := never

.PHONY: run test lint typecheck contracts pytest bench format clean

run: .venv/.synced
	$(RUN) jobgrant demo

test: .venv/.synced lint typecheck contracts pytest

lint: .venv/.synced
	$(RUN) ruff check .
	$(RUN) ruff format --check .

typecheck: .venv/.synced
	$(RUN) mypy

contracts: .venv/.synced
	$(RUN) lint-imports

pytest: .venv/.synced
	$(RUN) pytest

bench: .venv/.synced
	$(RUN) python bench/kernel.py

format: .venv/.synced
	$(RUN) ruff format .
	$(RUN) ruff check --fix .

$(UV):
	$(PYTHON) -m venv .tools || { sudo -n apt-get install -y python3-venv || apt-get install -y python3-venv; $(PYTHON) -m venv .tools; }
	.tools/bin/pip install --quiet --disable-pip-version-check uv

.venv/.synced: pyproject.toml uv.lock $(UV)
	$(UV) sync --frozen
	touch $@

clean:
	rm -rf .venv .tools .mypy_cache .ruff_cache .pytest_cache .import_linter_cache
