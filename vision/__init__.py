"""vision: see docs/architecture.md."""
