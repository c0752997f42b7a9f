"""``python -m tcplab`` is the ``tcplab`` command."""

from .cli import main

main()
