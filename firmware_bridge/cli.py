"""``guandan-table emulate-screen``: run the screen-controller emulator on a pseudo-terminal.

It prints the port (a stable symlink) on the first line of stdout, so scripts can read it, then
serves until interrupted (or ``--duration`` seconds). With ``--interactive`` it reads commands
from stdin: ``press E report``, ``unplug``, ``replug``, ``reboot``, ``show``, ``quit``.
"""

from __future__ import annotations

import argparse
import math
import signal
import sys
import threading
from pathlib import Path

from .emulator import ScreenEmulator
from .firmware.wire import PROTOCOL_VERSION, SEATS


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``emulate-screen`` sub-command."""
    p = subparsers.add_parser(
        "emulate-screen",
        help="模拟隔板屏控制器 / run the screen-controller emulator on a pseudo-terminal",
        description="在伪终端上运行隔板屏控制器固件 / run the screen-controller firmware on a pseudo-terminal "
                    "and print its port",
    )
    p.add_argument("--port", default=None,
                   help="串口链接路径 / symlink path for the port (default: a new temporary directory)")
    p.add_argument("--controller-id", default="EMU-SCREEN-1", help="控制器编号（HELLO 中发送） / controller id sent in HELLO (1–40 bytes)")
    p.add_argument("--protocol-version", type=int, default=PROTOCOL_VERSION,
                   help="模拟固件的协议版本（用于测试版本不符） / protocol version the emulated firmware speaks (to try a mismatch)")
    p.add_argument("--heartbeat-ms", type=int, default=1000, help="固件心跳间隔（毫秒） / heartbeat interval of the firmware in ms")
    p.add_argument("--duration", type=_duration, default=None,
                   help="运行秒数后退出 / exit after this many seconds (0 < s ≤ 86400)")
    p.add_argument("--interactive", action="store_true", help="从标准输入读取控制命令 / read control commands from stdin")
    p.set_defaults(func=run_emulate_screen)


def _duration(value: str) -> float:
    """Seconds to run: a positive finite number (``-1`` or ``nan`` ran for no time and exited 0)."""
    try:
        v = float(value)
    except ValueError:
        v = math.nan
    if not 0 < v <= 86400:
        raise argparse.ArgumentTypeError(f"须为 0 到 86400 之间的秒数，收到 {value} / "
                                         f"must be seconds in (0, 86400]: {value}")
    return v


def _show(emu) -> str:
    parts = []
    for seat in SEATS:
        parts.append(f"{seat}:[{emu.read_display(seat)}] report={emu.read_lamp(seat, 'report')} "
                     f"turn={emu.read_lamp(seat, 'turn')}")
    parts.append(f"referee={emu.read_lamp(None, 'referee')} buzzer={'on' if emu.buzzer_on else 'off'}")
    return "\n".join(parts)


def _command(emu, line: str) -> bool:
    """Run one interactive command; returns False to quit."""
    words = line.split()
    if not words:
        return True
    cmd = words[0].lower()
    if cmd in ("quit", "exit"):
        return False
    if cmd == "press" and len(words) == 3:
        emu.press(words[1].upper(), words[2].lower())
    elif cmd == "unplug":
        emu.unplug()
    elif cmd == "replug":
        emu.replug()
        print(f"端口：{emu.port} -> {emu.device} / port: {emu.port} -> {emu.device}", flush=True)
    elif cmd == "reboot":
        emu.reboot()
    elif cmd == "show":
        print(_show(emu), flush=True)
    else:
        print("命令 / commands: press SEAT BUTTON | unplug | replug | reboot | show | quit", flush=True)
    return True


def run_emulate_screen(args: argparse.Namespace) -> int:
    """Start the emulator, print the port, serve until interrupted."""
    if not 50 <= args.heartbeat_ms <= 3000:
        # Above 3000 the host, which calls the link down after 3.5 s without a frame, dropped and
        # re-made it every few seconds while the table was idle.
        raise ValueError(f"心跳间隔须在 50–3000 毫秒，收到 {args.heartbeat_ms} / "
                         f"--heartbeat-ms must be 50-3000, got {args.heartbeat_ms}")
    if not 0 <= args.protocol_version <= 255:
        # One byte on the wire: a larger one killed the firmware thread while the command said "running".
        raise ValueError(f"协议版本须为 0–255（一个字节），收到 {args.protocol_version} / "
                         f"--protocol-version must be 0-255 (one byte), got {args.protocol_version}")
    ident = args.controller_id
    try:
        size = len(ident.encode("utf-8"))
    except UnicodeEncodeError:  # bytes that are not UTF-8: the firmware thread died, the command said "running"
        size = -1
    if not 1 <= size <= 40:
        # HELLO carries 40 bytes of it: a longer one was cut silently, mid-character at worst.
        raise ValueError(f"控制器编号须为 1–40 字节的 UTF-8 文字，收到 {ident[:60]!r} / "
                         f"--controller-id must be 1-40 bytes of UTF-8 text, got {ident[:60]!r}")
    if args.port == "":  # Path("") is "." (this folder): say what is wrong, not "is a folder"
        raise ValueError("--port 为空 / --port is empty: give the path of a link to create, or leave it out")
    if args.port is not None:
        link = Path(args.port)
        if not link.parent.is_dir():
            raise ValueError(f"端口 {link} 所在的文件夹不存在 / the folder of --port {link} does not exist")
        if link.is_dir():
            raise ValueError(f"--port {link} 是文件夹，请给出要创建的链接路径 / "
                             f"--port {link} is a folder: give the path of a link to create")
    stop = threading.Event()
    if threading.current_thread() is threading.main_thread():
        # SIGTERM (systemd, ``kill``, a test's terminate) ends it as Ctrl-C and --duration do: through
        # ``emu.stop()``, which removes the link and its /tmp/guandan-screen-* folder (Python's default
        # for SIGTERM is to die on the spot, and each stop left a folder behind).
        signal.signal(signal.SIGTERM, lambda *_: stop.set())
    emu = ScreenEmulator(args.port, controller_id=args.controller_id, protocol_version=args.protocol_version,
                         heartbeat_ms=args.heartbeat_ms)
    try:
        emu.start()
        print(emu.port, flush=True)
        print(f"隔板屏控制器模拟器运行中：{emu.port} -> {emu.device}（协议 v{args.protocol_version}） / "
              f"screen emulator running: {emu.port} -> {emu.device} "
              f"(protocol v{args.protocol_version}); Ctrl-C 退出 / to stop", file=sys.stderr, flush=True)
        if args.interactive:
            def reader() -> None:
                for line in sys.stdin:
                    try:
                        if not _command(emu, line):
                            break
                    except ValueError as exc:
                        print(f"错误 / error: {exc}", flush=True)
                stop.set()

            threading.Thread(target=reader, daemon=True).start()
        stop.wait(args.duration)
    except KeyboardInterrupt:
        pass
    finally:
        emu.stop()
    return 0
