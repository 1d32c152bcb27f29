"""Ingest: validate the card corpus, chunk it, embed it, build a new index version, switch."""
