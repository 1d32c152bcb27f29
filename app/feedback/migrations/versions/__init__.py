"""The revisions of the feedback schema, oldest first: rNNNN_<what>.py, revision "NNNN"."""
