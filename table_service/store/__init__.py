"""The table's event log in SQLite, and the commands that read it back (``replay``, ``export``)."""
