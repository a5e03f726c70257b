"""The event layer above the tables: results, standings, the draw, the hub service and its pages.

Pure parts (:mod:`.model`, :mod:`.standings`, :mod:`.draw`) know nothing of MQTT, SQLite or
Flask, so the CLI, the hub and the tests rank and pair with exactly the same code.
"""
