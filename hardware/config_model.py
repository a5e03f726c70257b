"""What a checked ``table.toml`` says: the table's device kinds and the config's frozen dataclasses.

Apart from :mod:`hardware.config` (which reads and checks the file) because the devices, the CLI
and the placement check need only the vocabulary and the shape of a valid config, not the TOML
parser and its messages: :mod:`hardware.table` builds the devices from a :class:`TableConfig`, and
the values each field may take (``BACKENDS``, ``CAMERA_SOURCES``, ``LENSES`` …) are defined here,
beside the fields they describe, for the checker to hold the file to.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

#: A table id (and the hub's event id): one MQTT topic segment, ``guandan/<event>/<table>/…`` (no
#: wildcard, no separator: see docs/hub-protocol.md), and one URL path segment of the panel and the
#: feed (so not ``.`` or ``..``, which a browser resolves as a folder); ``\Z``, not ``$``, so that a
#: trailing newline is refused. The one rule for ``table.toml`` (:mod:`hardware.config`), the web
#: layer's ``attach_table`` and the hub protocol (``table_service.views.wire.SEGMENT_RE``): it lives
#: here, in hardware, because hardware may not import table_service (the "packages" layer contract
#: in pyproject.toml) while table_service may import hardware.
ID_SEGMENT_RE = re.compile(r"^(?!\.\.?\Z)[A-Za-z0-9_.\-]{1,64}\Z")
#: :data:`ID_SEGMENT_RE` in words, Chinese then English, for the messages that refuse an id.
ID_SEGMENT_RULE = "须为 1–64 个字母、数字、_ . -（不能只是 . 或 ..） / must be 1-64 letters, digits, _ . - (not . or ..)"

#: Buttons each seat has (the names carried by button events).
BUTTONS: tuple[str, ...] = ("report", "pass", "referee")
#: Lamps each seat has.
SEAT_LAMPS: tuple[str, ...] = ("report", "turn")

#: Device kinds present once per seat, as named in ``[devices]`` and ``[gpio.pins.<seat>]``.
SEAT_DEVICE_KINDS: tuple[str, ...] = (
    "report_button",
    "pass_button",
    "referee_button",
    "countdown",
    "report_lamp",
    "turn_lamp",
)
#: Device kinds present once per table.
TABLE_DEVICE_KINDS: tuple[str, ...] = ("referee_lamp", "buzzer", "status_led")
DEVICE_KINDS: tuple[str, ...] = SEAT_DEVICE_KINDS + TABLE_DEVICE_KINDS
#: Each device kind as the operator reads it, Chinese then English (``config check`` printed the
#: bare ids, ``report_button`` …; the self-test's table says them so too).
DEVICE_NAMES: dict[str, str] = {
    "report_button": "报牌按钮 / report button", "pass_button": "过牌按钮 / pass button",
    "referee_button": "呼叫裁判按钮 / call-referee button", "countdown": "倒计时 / countdown",
    "report_lamp": "报牌灯 / report lamp", "turn_lamp": "出牌灯 / turn lamp", "referee_lamp": "裁判灯 / referee lamp",
    "buzzer": "蜂鸣器 / buzzer", "status_led": "状态灯 / status LED",
}

BACKENDS: tuple[str, ...] = ("screen", "gpio", "sim", "none")
#: The screen controller has no status LED (that one sits on the Pi's own header).
SCREEN_KINDS: frozenset[str] = frozenset(DEVICE_KINDS) - {"status_led"}

CAMERA_SOURCES: tuple[str, ...] = ("device", "file", "folder", "synthetic", "none")
#: How a ``device`` camera is read: OpenCV's capture (USB/V4L2) or libcamera's picamera2 (the Pi's
#: camera modules, ``hardware.backends.picamera2_camera``).
CAMERA_BACKENDS: tuple[str, ...] = ("opencv", "picamera2")
#: Horizontal field of view (degrees) and full frame (px) of the cameras ``[camera] lens`` names:
#: what ``config check`` turns a mount height into px/mm with (``hardware.placement``). Camera
#: Module 3 and its wide version (Raspberry Pi's datasheet: 66° and 102°), the HQ camera with the
#: 6 mm C-mount lens, a typical 4K USB camera (about 70°: check the one bought, or give hfov_deg).
LENSES: dict[str, tuple[float, tuple[int, int]]] = {
    "cm3": (66.0, (4608, 2592)), "cm3-wide": (102.0, (4608, 2592)), "hq-6mm": (63.0, (4056, 3040)),
    "usb-4k": (70.0, (3840, 2160))}


@dataclass(frozen=True)
class ScreenConfig:
    """How to reach the screen controller: a serial ``port`` path or a pyserial ``url``."""

    url: str
    #: ``True`` when ``url`` is a device path (``port =``), which must exist on the Pi.
    is_port: bool
    connect_timeout_s: float = 5.0


@dataclass(frozen=True)
class DisplayPins:
    """The two lines of a TM1637 4-digit display."""

    clk: int
    dio: int


@dataclass(frozen=True)
class GpioConfig:
    """Pins and electrical options of the devices wired to the Pi's header."""

    #: ``(seat or None, kind) -> BCM pin`` for buttons, lamps, buzzer, status LED.
    pins: Mapping[tuple[str | None, str], int] = field(default_factory=dict)
    #: ``seat -> DisplayPins`` for gpio countdown displays.
    displays: Mapping[str, DisplayPins] = field(default_factory=dict)
    debounce_ms: float = 20.0
    #: Buttons wired between the pin and ground (internal pull-up); ``False``: to 3V3 with pull-down.
    button_pull_up: bool = True
    lamp_active_high: bool = True
    display_brightness: int = 4
    #: gpiozero pin factory name (``lgpio``, ``rpigpio``, ``pigpio``, ``native``, ``mock``);
    #: ``None`` keeps gpiozero's default (``GPIOZERO_PIN_FACTORY`` or autodetect).
    pin_factory: str | None = None
    blink_on_s: float = 0.5
    blink_off_s: float = 0.5


@dataclass(frozen=True)
class CameraConfig:
    """Where frames come from and at what size."""

    source: str = "none"
    #: ``device``: a path such as ``/dev/video0`` or an index; ``file``/``folder``: a path.
    device: str | int | None = None
    path: Path | None = None
    width: int = 1920
    height: int = 1080
    fps: float = 15.0
    #: Manual exposure in the driver's units; ``None`` leaves auto exposure on.
    exposure: float | None = None
    fourcc: str | None = "MJPG"
    reconnect_s: float = 2.0
    loop: bool = False
    realtime: bool = True
    #: ``"module:callable"`` producing frames for the synthetic source; ``None``: the built-in
    #: marker board (four corner ArUco markers), which is what the self-test looks for.
    renderer: str | None = None
    #: ``opencv`` (``cv2.VideoCapture``) or ``picamera2`` (libcamera: Camera Module 3, HQ camera).
    backend: str = "opencv"
    #: picamera2: which camera, and the small stream's size (motion and settling run on it).
    camera_num: int = 0
    lores: tuple[int, int] = (640, 360)
    #: picamera2: whether ``width``/``height`` were given (else the sensor's largest mode).
    size_given: bool = True
    #: Lens centre above the table top (mm) and the lens (``LENSES`` name or ``hfov_deg``): the
    #: px/mm ``config check`` reports before any calibration.
    mount_height_mm: float | None = None
    lens: str | None = None
    hfov_deg: float | None = None


@dataclass(frozen=True)
class TableConfig:
    """A validated ``table.toml``."""

    table_id: str
    seat_names: Mapping[str, str]
    data_dir: Path
    #: Backend of every device kind (all kinds present).
    backends: Mapping[str, str]
    screen: ScreenConfig | None
    gpio: GpioConfig
    camera: CameraConfig
    path: Path | None = None
    #: Things worth knowing that do not stop the table (printed by ``config check``).
    warnings: tuple[str, ...] = ()

    def backend(self, kind: str) -> str:
        """Backend name of a device kind (``report_button``, ``status_led`` …)."""
        return self.backends[kind]

    def uses(self, backend: str) -> bool:
        """Whether any device of the table is on ``backend``."""
        return backend in self.backends.values()
