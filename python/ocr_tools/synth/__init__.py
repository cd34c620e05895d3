"""The synthetic generator's text corpus and character set (the default model's vocabulary)."""
