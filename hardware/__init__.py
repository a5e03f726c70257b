"""hardware: see docs/architecture.md."""
