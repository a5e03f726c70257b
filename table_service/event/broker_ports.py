"""Whether a port the event's broker is to listen on is already taken on this machine:
``event provision`` warns (:func:`taken_ports`, :func:`taken_port_warning`), ``event broker``
refuses (:func:`port_taken`).

Why apart from :mod:`.provision`: these ask the machine as it is now, where provision writes files
(and uses none of them); the broker and the CLI each ask it.
"""

from __future__ import annotations

import socket
from collections.abc import Sequence

from table_service.event.provision import Provisioned


def port_taken(port: int, host: str = "127.0.0.1", timeout: float = 0.5) -> bool:
    """Whether something on this machine accepts connections on ``host:port`` (the one check of a port
    a broker is to listen on: ``event provision`` warns, ``event broker`` refuses)."""
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return True
    except OSError:
        return False


def taken_ports(done: Provisioned, bind: str | None = None, timeout: float = 0.5) -> list[int]:
    """The ports of ``done``'s listeners on which something on this machine already accepts
    connections, asked at 127.0.0.1 and at ``bind`` (when it is one address, not every one).

    Why: ``apt install mosquitto`` starts Debian's own ``mosquitto.service`` on localhost:1883.
    The provisioned broker then cannot listen on 1883 (it stops at start), and the hub, which
    connects to 127.0.0.1:1883 as ``hub.toml`` says, reaches the system broker instead and waits
    there for tables that never come, without a word."""
    hosts = ["127.0.0.1"]
    if bind and bind not in ("0.0.0.0", "::") and bind not in hosts:
        hosts.append(bind)
    taken: list[int] = []
    for port in (done.port, done.tls_port):
        if port is None:
            continue
        if any(port_taken(port, host, timeout) for host in hosts):
            taken.append(port)
    return taken


def taken_port_warning(ports: Sequence[int]) -> str:
    """What ``event provision`` says (stderr, Chinese first) when :func:`taken_ports` found any."""
    listed = ", ".join(str(p) for p in ports)
    return (f"注意：本机已有程序在监听端口 {listed}（多为 apt install mosquitto 自动启动的系统服务 mosquitto.service，"
            "或本赛事仍在运行的代理）：在本机按此配置启动的代理无法监听该端口，赛事中心会连到那个代理。若代理在本机运行："
            "sudo systemctl disable --now mosquitto，或用 --port 另选端口 / warning: something on this machine already "
            f"listens on port {listed} (most often Debian's own mosquitto.service, started by apt install mosquitto, "
            "or this event's broker still running): the broker this config starts here cannot listen there, and the "
            "hub would reach that one instead. If the broker runs on this machine: sudo systemctl disable --now "
            "mosquitto, or choose another port with --port")
