# Patient feedback: the report of refused and unhelpful questions for the card authors.
# Reads FEEDBACK_DATABASE_URL (default data/feedback/feedback.db, where `make run` writes).

GAPS_CSV ?= artifacts/gaps.csv

.PHONY: gaps

gaps: venv ## Refused and "Não ajudou" questions grouped by similarity; CSV in GAPS_CSV
	$(PY) -m app.feedback.gaps --csv $(GAPS_CSV)
