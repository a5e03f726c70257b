"""Device backends behind ``hardware.devices``: GPIO pins, the screen controller link, TM1637, the simulator."""
