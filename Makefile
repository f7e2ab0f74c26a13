# symhlo: `make demo` and `make test` each set up .venv from nothing when it is missing.
PYTHON ?= python3.11
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed

.PHONY: demo test lit pytest bench opinfo fuzz venv clean

$(STAMP): pyproject.toml
	@test -x $(PY) || $(PYTHON) -m venv $(VENV) || python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e ".[test]"
	@touch $(STAMP)

venv: $(STAMP)

demo: $(STAMP)
	$(VENV)/bin/symhlo demo

lit: $(STAMP)
	PATH="$(CURDIR)/$(VENV)/bin:$$PATH" $(VENV)/bin/lit -sv test

# Two workers, each taking whole files (module fixtures compile once): PYTEST_WORKERS=0 runs serially.
PYTEST_WORKERS ?= 2
pytest: $(STAMP)
	$(PY) -m pytest -q -n $(PYTEST_WORKERS) --dist loadfile

test: lit pytest

# The whole OpInfo database (about 640 ops, 2 isolated workers; long): test/opinfo/report.{md,json}
opinfo: $(STAMP)
	$(PY) test/opinfo/run.py --workers 2

# Every e2e-zoo and test/models model at sizes nobody picked (test/fuzz/size_fuzz.py; long):
# each compiled once by its own test, then called at the range minimum, 1, primes, tile
# boundaries and the top of the range, compared with eager. SYMHLO_FUZZ_SEED=<int> for other mixes.
fuzz: $(STAMP)
	SYMHLO_FUZZ=full nice -n 10 $(PY) -m pytest -q -p no:cacheprovider test/e2e test/models test/fuzz

bench: $(STAMP)
	$(PY) -m pip install -q -e ".[bench]"
	$(PY) bench/run.py
	$(PY) bench/generation.py

clean:
	rm -rf $(VENV) build test/**/Output
