"""Patient question answering over cited knowledge cards."""
