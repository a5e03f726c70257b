"""firmware_bridge: see docs/architecture.md."""
