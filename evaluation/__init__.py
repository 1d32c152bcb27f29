"""Evaluation: golden cases, recall@k against the card-atomic baseline, red-team runner.

The card-atomic baseline lives here and only here: production retrieval has no
card-atomic branch (ADR-0020).
"""
