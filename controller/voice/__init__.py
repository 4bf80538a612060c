"""Mandarin announcements of what the table publishes (docs/voice.md)."""
