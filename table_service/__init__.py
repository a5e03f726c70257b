"""guandan-table: the software of an officiated Guandan (掼蛋) competition table.

``table_service.rules`` is the pure rules engine; the rest of this package is the
referee engine, its event store, the web panel and feeds, and the service that
wires the table's devices to them.
"""

__version__ = "0.1.0"
