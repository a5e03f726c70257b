"""The Guandan rules engine: pure functions, no I/O, imports nothing else of the project.

Each name is imported from the module that defines it (``rules.cards``, ``rules.patterns``, …).

>>> from table_service.rules.patterns import classify
>>> [p.notation() for p in classify("7h 5s 6s 8s 9s", level="7")]
['straight 9: 5s 6s 7h 8s 9s', 'straight_flush 9: 5s 6s 7h 8s 9s']
"""
