# Benchmarks (bench/): latency vs floor, load, start-up time, ingest scaling, memory, LangChain peer.
# Writes docs/benchmarks.md and docs/bench/*.png; raw numbers in artifacts/bench/.
# BENCH_QUICK=1 for a short smoke run. Not part of `make test`.

.PHONY: bench

bench: venv ## Benchmarks -> docs/benchmarks.md (BENCH_QUICK=1: smoke run; needs `make images` for the compose part)
	$(PY) -m pip install -q -r requirements-bench.txt
	$(PY) -m bench $(BENCH_ARGS)
