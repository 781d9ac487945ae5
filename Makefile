# The two commands: `make demo` (set up, build the bundled content, ask two sample questions) and `make test`.
# Two install stamps, so `make demo` then `make test` adds only what the tests need, and `make test` alone works:
#   $(VENV)/.installed-core  the package and its core dependencies (all the demo needs: no torch, no extras)
#   $(VENV)/.installed-dev   + a CPU-only torch, then the dev extras (providers, PostgreSQL, pytest)
VENV ?= .venv
PY := $(VENV)/bin/python
UNITRAG := $(VENV)/bin/unitrag
PIP := $(PY) -m pip install -q
# PyPI's Linux torch wheel is the CUDA build (several GB of nvidia-* packages), so on Linux torch is asked for
# as `2.13.0+cpu`, a version only the CPU index has, alone (--no-deps: its dependencies come from the usual
# index with the dev extras). constraints.txt pins torch for every install, so nothing that depends on it can
# swap it for another build, and the last check fails loudly if one did. macOS wheels on PyPI are CPU builds.
TORCH_CPU_INDEX ?= https://download.pytorch.org/whl/cpu
TORCH := torch==$(shell sed -n 's/^torch==//p' constraints.txt)$(if $(filter Linux,$(shell uname -s)),+cpu)

.PHONY: setup setup-dev demo test schema

setup: $(VENV)/.installed-core

setup-dev: $(VENV)/.installed-dev

$(VENV)/.installed-core: pyproject.toml
	test -x $(PY) || python3 -m venv $(VENV)
	$(PIP) --upgrade pip
	$(PIP) -c constraints.txt -e .
	touch $@

$(VENV)/.installed-dev: $(VENV)/.installed-core constraints.txt
	$(PIP) --no-deps --retries 1 --extra-index-url $(TORCH_CPU_INDEX) -c constraints.txt "$(TORCH)"
	$(PIP) -c constraints.txt -e ".[dev]"
	$(PY) -c "import torch, sys; sys.exit(f'torch {torch.__version__} is a CUDA build: see PyTorch stays a CPU build in README.md' if torch.version.cuda else 0)"
	touch $@

demo: setup
	$(UNITRAG) validate
	$(UNITRAG) build
	$(UNITRAG) inspect
	$(UNITRAG) ask "How much salt should adults eat per day?"
	$(UNITRAG) ask "孕妇每天需要多少碘？"

test: setup-dev
	$(PY) -m pytest -q

schema: setup
	$(UNITRAG) schema
