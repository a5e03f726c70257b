"""Flask-free read models of a table: the delayed public feed and the live fan-out to subscribers.

Between the store and the layers that serve them (web panel, MQTT bridge); no Flask, no MQTT here.
"""
