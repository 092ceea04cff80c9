# The two quickstart commands: `make demo` and `make test`. Both set up .venv first.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
QUESTION ?= What is 15% of 2,340, and what time is it in Tokyo?

.PHONY: setup demo test lint clean

# llama.cpp's AMX kernels (compiled in where the CPU has AMX, e.g. Sapphire Rapids) segfault on
# the first long prompt there (ggml-org/llama.cpp#20824: the worker threads are not granted the
# tile data), so they are left out; llama.cpp then uses its AVX-512 kernels.
ifeq ($(shell uname -m),x86_64)
export CMAKE_ARGS ?= -DCMAKE_C_FLAGS=-mno-amx-int8 -DCMAKE_CXX_FLAGS=-mno-amx-int8
endif

$(BIN)/toolweave: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	@echo "Installing toolweave (the first install compiles llama.cpp: about 7 minutes on 2 cores)."
	$(BIN)/pip install --quiet -e '.[embedded,dev]'
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
