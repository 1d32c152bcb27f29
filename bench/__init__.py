"""Benchmarks: latency against the floor, load, ingest scaling, memory, and a LangChain
peer side by side. `python -m bench` (or `make bench`) writes docs/benchmarks.md."""
