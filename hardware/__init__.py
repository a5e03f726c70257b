"""hardware: the table's logical devices behind one interface.

The service builds everything from ``table.toml``::

    from hardware.config import load_config
    from hardware.table import TableDevices

    config = load_config("table.toml")               # ConfigError lists every problem
    with TableDevices(config) as table:               # GPIO claimed, screen link opened
        table.on_button(lambda ev: runner.submit(...))  # ButtonEvent(seat, button, pressed, time, source)
        table.seats["E"].countdown.set_countdown(20)
        table.seats["E"].turn_lamp.on()
        frames = table.open_camera()                  # FrameSource yielding (timestamp, frame)

Backends per device kind (``screen``, ``gpio``, ``sim``, ``none``) are chosen in ``[devices]``.
See docs/architecture.md (section "Table devices") and examples/*.toml.
"""
