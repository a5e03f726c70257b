"""hardware: the table's logical devices behind one interface.

The service builds everything from ``table.toml``::

    from hardware import TableDevices, load_config

    config = load_config("table.toml")               # ConfigError lists every problem
    with TableDevices(config) as table:               # GPIO claimed, screen link opened
        table.on_button(lambda ev: runner.submit(...))  # ButtonEvent(seat, button, pressed, time, source)
        table.seats["E"].countdown.set_countdown(20)
        table.seats["E"].turn_lamp.on()
        frames = table.open_camera()                  # FrameSource yielding (timestamp, frame)

Backends per device kind (``screen``, ``gpio``, ``sim``, ``none``) are chosen in ``[devices]``.
See docs/architecture.md (section "Table devices") and examples/*.toml.
"""

from hardware.camera import (
    CameraStatus,
    CaptureDeviceSource,
    FrameSource,
    ImageFolderSource,
    SyntheticSource,
    VideoFileSource,
    find_corner_markers,
    marker_board,
    open_source,
)
from hardware.config import (
    BUTTONS,
    DEVICE_KINDS,
    SEAT_LAMPS,
    SEATS,
    CameraConfig,
    GpioConfig,
    ScreenConfig,
    TableConfig,
    load_config,
    parse_config,
)
from hardware.devices import ButtonEvent, Buzzer, CountdownDisplay, Lamp
from hardware.errors import CameraError, ConfigError, DeviceError, DisplayNotAcknowledged, HardwareError
from hardware.selftest import SelfTest, SelfTestReport, run_selftest
from hardware.table import SeatDevices, TableDevices

__all__ = [
    "BUTTONS",
    "DEVICE_KINDS",
    "SEATS",
    "SEAT_LAMPS",
    "ButtonEvent",
    "Buzzer",
    "CameraConfig",
    "CameraError",
    "CameraStatus",
    "CaptureDeviceSource",
    "ConfigError",
    "CountdownDisplay",
    "DeviceError",
    "DisplayNotAcknowledged",
    "FrameSource",
    "GpioConfig",
    "HardwareError",
    "ImageFolderSource",
    "Lamp",
    "ScreenConfig",
    "SeatDevices",
    "SelfTest",
    "SelfTestReport",
    "SyntheticSource",
    "TableConfig",
    "TableDevices",
    "VideoFileSource",
    "find_corner_markers",
    "load_config",
    "marker_board",
    "open_source",
    "parse_config",
    "run_selftest",
]
