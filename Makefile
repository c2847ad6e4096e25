# omnieval — quick start: `make demo` (a real evaluation end to end) and `make test`.
SHELL := /bin/bash
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip -q --disable-pip-version-check
EXTRAS ?= dev,metrics,megabench,datasets,hf,analysis,protect,platform

.PHONY: install system-deps test test-fast lint demo bench clean

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --upgrade pip
	# CPU build of torch first, so no dependency can pull a CUDA build.
	$(PIP) install torch==2.13.0
	$(PIP) install -e '.[$(EXTRAS)]'
	touch $@

install: $(VENV)/.installed

system-deps:
	@if ! command -v espeak-ng >/dev/null 2>&1 || ! command -v ffmpeg >/dev/null 2>&1; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq espeak-ng sox ffmpeg >/dev/null) \
	      || echo "warning: could not install espeak-ng/sox/ffmpeg; audio demo data falls back to tones"; \
	  else echo "note: espeak-ng not found; audio demo data falls back to tones"; fi; \
	fi
	@if [ ! -f /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf ] && [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq fonts-dejavu-core >/dev/null) \
	    || echo "warning: could not install fonts-dejavu-core; generated text suites need font=PATH"; \
	fi
	@# Debian's chromium: the HTML reports are tested in a real headless browser (Playwright, executable_path).
	@if ! command -v chromium >/dev/null 2>&1; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null) \
	      || echo "warning: could not install chromium; the report browser tests will be skipped"; \
	  else echo "note: chromium not found; the report browser tests will be skipped"; fi; \
	fi
	@# Debian's PostgreSQL: the platform's database tests start a throwaway cluster with initdb/pg_ctl.
	@if [ ! -x /usr/lib/postgresql/15/bin/initdb ] && [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null) \
	    || echo "warning: could not install postgresql; the platform's PostgreSQL tests will be skipped"; \
	fi

lint: install
	$(VENV)/bin/ruff check src tests benchmarks scripts
	$(VENV)/bin/lint-imports
	$(VENV)/bin/mypy

test: install system-deps lint
	$(PY) -m pytest -q -p no:cacheprovider

test-fast: install
	$(PY) -m pytest -q -x -m "not slow"

demo: install system-deps
	$(PY) scripts/demo.py

bench: install
	$(PY) benchmarks/harness_overhead.py
	$(PY) benchmarks/scoring_throughput.py
	$(PY) benchmarks/video_sampling.py
	$(PY) benchmarks/media_cache.py
	$(PY) benchmarks/hf_batching.py
	$(PY) benchmarks/generate_throughput.py
	$(PY) benchmarks/report_size.py

clean:
	rm -rf $(VENV) runs .pytest_cache
