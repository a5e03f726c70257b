"""The table service on the Pi: engine thread, clock, device driver, camera path, MQTT bridge, wiring.
"""
