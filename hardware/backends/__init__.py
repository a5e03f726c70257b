"""Device backends behind ``hardware.devices``: GPIO pins, the screen controller link, TM1637, the simulator,
and the Pi camera modules through picamera2 (``picamera2_camera``; its test stand-in ``fake_picamera2``)."""
