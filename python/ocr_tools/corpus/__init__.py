"""Measurements of the real-document training corpus (scripts/corpus builds it)."""
