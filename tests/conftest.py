"""Shared pytest fixtures. Area-specific fixtures live in the area's own conftest or test module."""
