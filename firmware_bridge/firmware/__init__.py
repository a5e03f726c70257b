"""Screen-controller firmware (MicroPython for the Pico; also runs on CPython in the emulator).

Modules: ``wire`` (framing and payloads), ``endpoint`` (reliable link), ``controller`` (the
application), ``seg7`` (display glyphs), ``hal`` (hardware seam), ``hal_pico`` + ``tm1637``
(the real board), ``main`` (Pico entry point). Nothing here may import CPython-only modules.
"""
