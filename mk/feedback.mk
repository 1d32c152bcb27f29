# Patient feedback: the report of refused and unhelpful questions for the card authors.
# Reads FEEDBACK_DATABASE_URL (default data/feedback/feedback.db, where `make run` writes).

GAPS_CSV ?= artifacts/gaps.csv

.PHONY: gaps feedback-migrate feedback-current

gaps: venv ## Refused and "Não ajudou" questions grouped by similarity; CSV in GAPS_CSV
	$(PY) -m app.feedback.gaps --csv $(GAPS_CSV)

feedback-migrate: venv ## Migrate the feedback database to this code's schema (back it up first)
	$(PY) -m app.feedback.migrate upgrade

feedback-current: venv ## The feedback database's schema revision (exit 1 unless at head)
	$(PY) -m app.feedback.migrate current
