"""Alembic's script directory for the feedback store (env.py, versions/), run by
app.feedback.schema; no alembic.ini."""
