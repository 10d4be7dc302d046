"""The addresses a classroom uses to reach this machine."""

import ipaddress
import socket

import psutil


def lan_addresses() -> list[str]:
    """This machine's IPv4 addresses other than loopback, e.g. 192.168.1.20."""
    found = []
    for addresses in psutil.net_if_addrs().values():
        for address in addresses:
            if (
                address.family == socket.AF_INET
                and not ipaddress.ip_address(address.address).is_loopback
            ):
                found.append(address.address)
    return sorted(set(found))


def machine_hosts() -> list[str]:
    """Every name and address this machine answers to, for ALLOWED_HOSTS."""
    return sorted({"localhost", "127.0.0.1", "[::1]", socket.gethostname(), *lan_addresses()})
